//! What a command-line user expects of `hilbert` (issue 33): `--version` with the commit and
//! date it was built from, shell completions and a manual page generated from the command's own
//! definitions, `--help` with the exit codes and an example per subcommand, and `--quiet`.

mod common;

use common::{TempDir, hilbert};

#[test]
fn version_names_the_commit_and_its_date() {
    let run = hilbert(&["--version"], None);
    assert_eq!(run.code, Some(0));
    let line = run.stdout.trim();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string());
    match commit {
        // Built from this checkout: its commit, and a date YYYY-MM-DD.
        Some(commit) if std::env::var("HILBERT_COMMIT").is_err() => {
            let prefix = format!("hilbert {} (commit {commit}, ", env!("CARGO_PKG_VERSION"));
            assert!(line.starts_with(&prefix), "{line}");
            let date = line.strip_prefix(&prefix).unwrap().trim_end_matches(')');
            let parts: Vec<&str> = date.split('-').collect();
            assert!(
                parts.len() == 3 && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())),
                "{line}"
            );
        }
        // No git: said as such, never an empty field.
        _ => assert!(line.contains("(commit "), "{line}"),
    }
}

#[test]
fn help_lists_the_exit_codes_and_an_example_per_subcommand() {
    let top = hilbert(&["--help"], None);
    assert_eq!(top.code, Some(0));
    for code in ["0 ", "1 ", "2 ", "3 ", "130, 143, 129"] {
        assert!(
            top.stdout
                .lines()
                .skip_while(|l| *l != "Exit codes:")
                .any(|l| l.trim_start().starts_with(code)),
            "{code}: {}",
            top.stdout
        );
    }
    let commands = common::subcommands();
    assert!(commands.len() >= 9, "{commands:?}");
    for command in &commands {
        let help = hilbert(&[command, "--help"], None);
        assert_eq!(help.code, Some(0), "{command}");
        let example = help
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("Example"))
            .nth(1)
            .unwrap_or_else(|| panic!("{command}: no example\n{}", help.stdout));
        assert!(
            example
                .trim_start()
                .starts_with(&format!("hilbert {command}"))
                || example.contains(&format!("hilbert {command} ")),
            "{command}: {example}"
        );
        assert!(help.stdout.contains("Exit codes: 0"), "{command}");
    }
}

#[test]
fn completions_and_the_manual_page_come_from_the_command_itself() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = hilbert(&["completions", shell], None);
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        for word in ["hilbert", "build", "verify", "report", "progress"] {
            assert!(run.stdout.contains(word), "{shell}: no {word}");
        }
    }
    let run = hilbert(&["completions", "tcsh"], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("bash"), "{}", run.stderr);
    // bash reads the script without error.
    let tmp = TempDir::with_files(&[]);
    let script = tmp.join("hilbert.bash");
    std::fs::write(&script, hilbert(&["completions", "bash"], None).stdout).unwrap();
    let bash = std::process::Command::new("bash")
        .args(["-n", &script])
        .output()
        .unwrap();
    assert!(
        bash.status.success(),
        "{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    let man = hilbert(&["man"], None);
    assert_eq!(man.code, Some(0));
    assert!(
        man.stdout.contains(".TH hilbert 1"),
        "{}",
        &man.stdout[..200]
    );
    for word in ["check", "build", "verify", "completions", "Exit codes"] {
        assert!(man.stdout.contains(word), "the manual page has no {word}");
    }
}

#[test]
fn quiet_writes_no_report_but_keeps_the_exit_code_and_the_report_files() {
    let tmp = TempDir::with_files(&[]);
    let (out, junit) = (tmp.join("out"), tmp.join("j.xml"));
    let run = hilbert(
        &[
            "build",
            "examples/livelock",
            "--out",
            &out,
            "--quiet",
            "--report",
            &format!("junit={junit}"),
        ],
        None,
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "");
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<failure")
    );
    for args in [
        vec!["check", "examples/livelock", "-q"],
        vec!["verify", "--quiet", &format!("{out}/Doorway.Pass.cert")],
    ] {
        let run = hilbert(&args, None);
        assert!(matches!(run.code, Some(0 | 1)), "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // An error still says so, on standard error.
    let run = hilbert(&["build", "no/such/place", "-q"], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
}
