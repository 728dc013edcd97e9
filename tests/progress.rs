//! Progress in a CI log (issue 33): off a terminal, `hilbert build` says on standard error what
//! it is doing — the phase, the network and its number, the states explored — in whole lines,
//! at a steady interval (`HILBERT_PROGRESS_INTERVAL`, 10 s by default; 0 says each phase as it
//! begins), unless `--progress never`. The tests set the interval to 0, so that what is said
//! does not depend on how long the build takes.

mod common;

use common::TempDir;
use std::process::Command;

fn build(args: &[&str], interval: Option<&str>) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hilbert"));
    command
        .arg("build")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HILBERT_PROGRESS_INTERVAL");
    if let Some(i) = interval {
        command.env("HILBERT_PROGRESS_INTERVAL", i);
    }
    let out = command.output().expect("run hilbert");
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn progress_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("progress: "))
        // The time at the start of each line: `0.1 s: …`.
        .map(|l| l.split_once(" s: ").map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

#[test]
fn off_a_terminal_the_build_says_each_phase_and_network_in_whole_lines() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let args = [
        "examples/production-line",
        "examples/livelock",
        "--out",
        &out,
    ];
    let (code, stdout, stderr) = build(&args, Some("0"));
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        progress_lines(&stderr),
        [
            "checking the sources",
            "proving network 1 of 3 (Operator.Work)",
            "proving network 2 of 3 (Operator.Stop)",
            "proving network 3 of 3 (Doorway.Pass)",
            "kernel: checking the certificate of network 1 of 3 (Operator.Work)",
            "kernel: checking the certificate of network 2 of 3 (Operator.Stop)",
            "kernel: checking the certificate of network 3 of 3 (Doorway.Pass)",
            "writing the reports",
        ],
        "{stderr}"
    );
    // Whole lines: no carriage return, no terminal control; the report is untouched.
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
    assert!(!stdout.contains("progress: "), "{stdout}");
    let (_, quiet_stdout, quiet) =
        build(&[&args[..], &["--progress", "never"]].concat(), Some("0"));
    assert!(progress_lines(&quiet).is_empty(), "{quiet}");
    assert_eq!(
        quiet_stdout
            .lines()
            .filter(|l| l.starts_with("theorem"))
            .count(),
        stdout.lines().filter(|l| l.starts_with("theorem")).count()
    );
    let (_, _, always) = build(&[&args[..], &["--progress", "always"]].concat(), Some("0"));
    assert_eq!(progress_lines(&always).len(), 8, "{always}");
}

#[test]
fn a_progress_interval_that_is_not_seconds_is_a_usage_error() {
    for bad in ["soon", "-1", "NaN", "1e9"] {
        let (code, stdout, stderr) = build(&["examples/livelock", "--format", "json"], Some(bad));
        assert_eq!(code, Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("HILBERT_PROGRESS_INTERVAL"), "{stderr}");
        let error: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(error["error"]["kind"], "usage");
    }
    let (code, _, stderr) = build(&["examples/livelock", "--progress", "sometimes"], None);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("auto") && stderr.contains("never"),
        "{stderr}"
    );
}
