//! The kernel stays small and dull: its dependencies are exactly the certificate format (plus,
//! at most, serde, sha2, rayon, foldhash and hashbrown), it forbids `unsafe` through the workspace lints,
//! and every source file says what it is for.

use std::path::Path;

fn kernel() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The names in one `[section]` of a Cargo.toml: the keys of its `name = …` lines.
fn section(toml: &str, name: &str) -> Vec<String> {
    toml.lines()
        .map(str::trim)
        .skip_while(|l| *l != format!("[{name}]"))
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(['=', '.', ' ']).next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_kernel_depends_on_the_certificate_format_and_nothing_else_but_what_is_allowed() {
    let toml = std::fs::read_to_string(kernel().join("Cargo.toml")).unwrap();
    let deps = section(&toml, "dependencies");
    assert!(
        deps.iter().any(|d| d == "hilbert-certificates"),
        "the kernel must depend on hilbert-certificates: {deps:?}"
    );
    for d in &deps {
        assert!(
            [
                "hilbert-certificates",
                "serde",
                "sha2",
                "rayon",
                "foldhash",
                "hashbrown"
            ]
            .contains(&d.as_str()),
            "the kernel may not depend on `{d}`"
        );
    }
    // No other section can add a dependency to the kernel library.
    for other in ["build-dependencies", "target", "patch"] {
        assert!(
            !toml
                .lines()
                .any(|l| l.trim().starts_with(&format!("[{other}"))),
            "kernel/Cargo.toml has a [{other}…] section"
        );
    }
    assert!(
        toml.contains("[lints]\nworkspace = true"),
        "the kernel must take the workspace lints (which forbid unsafe code)"
    );
    let workspace = std::fs::read_to_string(kernel().join("../Cargo.toml")).unwrap();
    assert!(
        workspace.contains("[workspace.lints.rust]\nunsafe_code = \"forbid\""),
        "the workspace lints must forbid unsafe code"
    );
}

#[test]
fn every_kernel_source_file_starts_with_its_documentation_and_has_no_unsafe() {
    let mut files: Vec<_> = std::fs::read_dir(kernel().join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            text.starts_with("//!"),
            "{} does not start with a `//!` module doc",
            f.display()
        );
        for word in ["unsafe", "allow(unsafe_code)"] {
            assert!(!text.contains(word), "{} mentions `{word}`", f.display());
        }
    }
}

/// Lines of Rust in the kernel's sources that are neither blank, comments, nor unit tests.
fn code_lines() -> usize {
    let mut total = 0;
    for e in std::fs::read_dir(kernel().join("src")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        total += code
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .count();
    }
    total
}

#[test]
fn the_kernel_stays_under_3500_lines_and_its_readme_says_how_many() {
    let n = code_lines();
    assert!(n < 3_500, "the kernel has {n} lines of code");
    let readme = std::fs::read_to_string(kernel().join("README.md")).unwrap();
    let stated: Vec<usize> = readme
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter_map(|w| w.replace(',', "").parse().ok())
        .collect();
    // The README's figure may lag a little behind the code, but not by more than 10%.
    assert!(
        stated.iter().any(|&s| s.abs_diff(n) * 10 <= n),
        "kernel/README.md does not give the kernel's size ({n} lines)"
    );
}
