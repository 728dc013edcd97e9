//! The build script of the `hilbert` command: the commit and the commit date `--version` names,
//! from git when the sources are a git checkout, else `unknown` (a source archive, a vendored
//! copy, a build without git installed). `HILBERT_COMMIT` and `HILBERT_COMMIT_DATE` in the
//! environment of the build win over git (for packagers building from an archive).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo::rerun-if-env-changed=HILBERT_COMMIT");
    println!("cargo::rerun-if-env-changed=HILBERT_COMMIT_DATE");
    // Built again when HEAD moves (a commit, a checkout): HEAD, and the ref it names.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut watched = vec![dir.join("HEAD")];
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"])
            && let Some(common) = git(&["rev-parse", "--git-common-dir"])
        {
            let common = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(common);
            watched.push(common.join(&reference));
            watched.push(common.join("packed-refs"));
        }
        // Only files that exist: cargo runs the script again on every build for one that does
        // not.
        for file in watched.iter().filter(|f| f.exists()) {
            println!("cargo::rerun-if-changed={}", file.display());
        }
    } else {
        println!("cargo::rerun-if-changed=build.rs");
    }
    let commit = std::env::var("HILBERT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    let date = std::env::var("HILBERT_COMMIT_DATE")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["log", "-1", "--format=%cs", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo::rustc-env=HILBERT_COMMIT={commit}");
    println!("cargo::rustc-env=HILBERT_COMMIT_DATE={date}");
}
