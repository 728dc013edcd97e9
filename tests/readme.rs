//! The README's setup and test commands are the ones CI runs, and its list of subcommands is the
//! binary's: the two cannot drift apart.

mod common;

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The command lines of a shell script: not blank, not comments, not `set` options.
fn commands(script: &str) -> Vec<&str> {
    script
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("set "))
        .collect()
}

#[test]
fn ci_runs_exactly_the_readme_test_command() {
    let ci = read(".ci/run");
    let commands = commands(&ci);
    assert_eq!(
        commands.len(),
        1,
        ".ci/run must run one command: {commands:?}"
    );
    let readme = read("README.md");
    assert!(
        readme.lines().any(|l| l.trim() == commands[0]),
        "README.md does not show `{}` on a line of its own",
        commands[0]
    );
    assert!(commands[0].contains("cargo test"), "{}", commands[0]);
}

#[test]
fn the_readme_gives_exactly_two_setup_commands() {
    let readme = read("README.md");
    let setup: Vec<&str> = readme
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("./scripts/setup && "))
        .collect();
    assert_eq!(
        setup,
        [
            "./scripts/setup && cargo run --release --locked -- build examples/production-line",
            "./scripts/setup && cargo test --workspace --locked",
        ]
    );
}

#[cfg(unix)]
#[test]
fn the_scripts_are_executable() {
    use std::os::unix::fs::PermissionsExt;
    for script in ["scripts/setup", ".ci/run"] {
        let mode = std::fs::metadata(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{script} is not executable");
    }
}

#[test]
fn the_readme_lists_every_subcommand_the_binary_has() {
    let names = common::subcommands();
    assert!(names.iter().any(|n| n == "check"), "{names:?}");
    let readme = read("README.md");
    let listed: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("- `hilbert "))
        .filter_map(|l| l.split([' ', '`']).next())
        .collect();
    assert_eq!(
        listed, names,
        "README.md's list of subcommands is not the binary's"
    );
}
