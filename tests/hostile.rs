//! Hostile inputs end to end: special files, link loops, oversized files and resource bounds.
//! Each case runs the binary under a deadline (a hang is a failure, not a stuck test), asserts
//! the clean exit code and the error's words, and asserts a memory bound read from the kernel
//! (`getrusage(RUSAGE_CHILDREN)`: the largest peak resident set of any process this test binary
//! has waited for, so a bound that holds for it holds for each case).
//!
//! The small sizes run here; the large ones (10⁸-cycle runs, 30,000-step plans, 10,000 files)
//! are the `scaling` rows of `hilbert bench` (benchmarks/).

mod common;

use common::{TempDir, children_peak_bytes, goal_project, run_within, wide_project};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const SMALL: Duration = Duration::from_secs(10);
const ONE_GIB: u64 = 1 << 30;

/// Asserts a refusal: exit code 2, nothing on stdout, the words on stderr, within the bounds.
fn refused(args: &[&str], words: &[&str]) {
    let run = run_within(args, SMALL);
    assert_eq!(
        run.code,
        Some(2),
        "`hilbert {}`:\n{}{}",
        args.join(" "),
        run.stdout,
        run.stderr
    );
    for w in words {
        assert!(
            run.stderr.contains(w),
            "`hilbert {}`: `{w}` not in\n{}",
            args.join(" "),
            run.stderr
        );
    }
    let peak = children_peak_bytes();
    assert!(peak < ONE_GIB, "a child peaked at {peak} bytes");
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

/// Builds `p` into `p/out` and returns the path of its one certificate.
fn certificate_of(p: &TempDir) -> String {
    let out = p.join("out");
    let build = run_within(
        &["build", &p.path(), "--out", &out],
        Duration::from_secs(60),
    );
    assert_eq!(build.code, Some(0), "{}{}", build.stdout, build.stderr);
    std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .find(|p| p.ends_with(".cert"))
        .expect("a certificate")
}

fn project() -> TempDir {
    TempDir::with_files(&[
        ("Operator.ha", common::CLEAN_AGENT.as_bytes()),
        ("Line.hk", common::CLEAN_PLAN.as_bytes()),
    ])
}

#[test]
fn a_fifo_named_as_a_source_is_refused_without_blocking() {
    let dir = TempDir::with_files(&[]);
    let fifo = PathBuf::from(dir.join("f.ha"));
    mkfifo(&fifo);
    refused(
        &["check", &dir.join("f.ha")],
        &["f.ha` is a FIFO, not a regular file"],
    );
    // Also found by a directory walk.
    refused(&["check", &dir.path()], &["f.ha` is a FIFO"]);
    refused(&["build", &dir.path()], &["f.ha` is a FIFO"]);
}

#[test]
fn devices_are_refused_wherever_a_file_is_read() {
    let p = project();
    refused(
        &["verify", "/dev/zero"],
        &["`/dev/zero` is a character device"],
    );
    let cert = certificate_of(&p);
    // `/dev/zero` is not a source by its name; a link to it that is named like one is read
    // as the device it is.
    refused(
        &["verify", &cert, "--sources", "/dev/zero"],
        &["`/dev/zero` is not a Hilbert source"],
    );
    symlink("/dev/zero", p.0.join("Zero.hk"));
    refused(
        &["verify", &cert, "--sources", &p.join("Zero.hk")],
        &["Zero.hk` is a character device"],
    );
    // Links to devices inside a project.
    for device in ["/dev/zero", "/dev/urandom"] {
        let q = project();
        symlink(device, q.0.join("Noise.hk"));
        refused(&["check", &q.path()], &["Noise.hk` is a character device"]);
    }
    // A scenario and a journal that are devices.
    refused(
        &[
            "run",
            &p.path(),
            "--agent",
            "Operator",
            "--scenario",
            "/dev/zero",
        ],
        &["`/dev/zero` is a character device"],
    );
    refused(
        &["replay", "/dev/zero"],
        &["`/dev/zero` is a character device"],
    );
}

#[test]
fn a_journal_whose_sources_are_special_files_is_refused() {
    let p = project();
    let journal = p.join("j.jsonl");
    let run = run_within(
        &[
            "run",
            &p.path(),
            "--agent",
            "Operator",
            "--journal",
            &journal,
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&journal).unwrap();
    let plan = std::fs::canonicalize(p.0.join("Line.hk")).unwrap();
    let plan = plan.display().to_string();
    // The journal names the project's directory and the sources relative to it.
    let project = std::fs::canonicalize(&p.0).unwrap().display().to_string();
    assert!(
        text.contains(&format!("\"project\":\"{project}\"")) && text.contains("[\"Line.hk\","),
        "{text}"
    );
    // The plan file becomes a FIFO, then a link to /dev/zero.
    std::fs::remove_file(&plan).unwrap();
    mkfifo(Path::new(&plan));
    refused(&["replay", &journal], &["Line.hk` is a FIFO"]);
    std::fs::remove_file(&plan).unwrap();
    symlink("/dev/zero", &plan);
    refused(&["replay", &journal], &["Line.hk` is a character device"]);
}

#[test]
fn directory_link_loops_are_found_and_named() {
    let p = project();
    let cert = certificate_of(&p);
    std::fs::create_dir(p.0.join("sub")).unwrap();
    symlink("..", p.0.join("sub/up"));
    for args in [
        vec!["check".to_string(), p.path()],
        vec![
            "verify".to_string(),
            cert.clone(),
            "--sources".to_string(),
            p.path(),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(
            &args,
            &["sub/up", "which encloses it: a directory link loop"],
        );
    }
    // A link to a directory outside is followed, and one reached twice is read once.
    let shared = TempDir::with_files(&[("Line.hk", common::CLEAN_PLAN.as_bytes())]);
    let q = TempDir::with_files(&[("Operator.ha", common::CLEAN_AGENT.as_bytes())]);
    symlink(&shared.0, q.0.join("plans"));
    symlink(&shared.0, q.0.join("again"));
    let run = run_within(&["check", &q.path()], SMALL);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("checked 2 files"), "{}", run.stdout);
}

#[test]
fn a_source_over_the_cap_is_refused_by_its_size() {
    let p = project();
    let big = p.0.join("Big.hk");
    let file = std::fs::File::create(&big).unwrap();
    // Sparse: 16 MiB and one byte, none of it written.
    file.set_len((16 << 20) + 1).unwrap();
    refused(
        &["check", &p.path()],
        &["Big.hk` is larger than the 16 MiB limit"],
    );
}

#[test]
fn max_memory_bounds_the_whole_build() {
    let p = wide_project(1000);
    let out = p.join("out");
    // A certificate of an earlier build at the same place must not survive as if it were this one's.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(p.0.join("out/A.W.cert"), b"stale").unwrap();
    let bound: u64 = 200 << 20;
    let run = run_within(
        &[
            "build",
            &p.path(),
            "--max-memory",
            "200M",
            "--out",
            &out,
            "--format",
            "json",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["admitted"], false);
    for t in report["theorems"].as_array().unwrap() {
        assert_eq!(t["status"], "unproved", "{t}");
        assert!(
            t["reason"]
                .as_str()
                .unwrap()
                .contains("passed --max-memory 200 MiB"),
            "{t}"
        );
    }
    let stats = &report["stats"];
    assert_eq!(stats["max_memory_bytes"], bound);
    let network = &stats["networks"][0];
    assert_eq!(network["network"], "A.W");
    assert_eq!(network["certificate_written"], false);
    let peak = network["peak_rss_bytes"].as_u64().expect("a peak on Linux");
    assert!(peak < bound, "the build says it peaked at {peak}");
    assert!(
        !p.0.join("out/A.W.cert").exists(),
        "the stale certificate is gone"
    );
    // What the kernel measured, not what the build says.
    let measured = children_peak_bytes();
    assert!(measured < bound, "a child peaked at {measured} bytes");
}

#[test]
fn max_memory_takes_sizes_and_refuses_nonsense() {
    let p = project();
    for bad in ["0", "lots", "3X", "-1G"] {
        let flag = format!("--max-memory={bad}");
        let run = run_within(&["build", &p.path(), &flag], SMALL);
        assert_eq!(run.code, Some(2), "--max-memory {bad}: {}", run.stderr);
        assert!(run.stderr.contains("--max-memory"), "{}", run.stderr);
    }
    let out = p.join("out");
    let run = run_within(
        &[
            "build",
            &p.path(),
            "--max-memory",
            "1.5G",
            "--out",
            &out,
            "--format",
            "json",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["stats"]["max_memory_bytes"], 3u64 << 29);
    let network = &report["stats"]["networks"][0];
    assert_eq!(network["certificate_written"], true);
    assert!(network["kernel_peak_rss_bytes"].as_u64().is_some());
}

#[test]
fn absurd_jobs_are_lowered_to_the_core_count() {
    // Was: --jobs 10000 aborted (no alternative stack), --jobs 100000 hung.
    let p = project();
    let out = p.join("out");
    for jobs in ["10000", "100000", "99999999999"] {
        let run = run_within(
            &["build", &p.path(), "--jobs", jobs, "--out", &out],
            Duration::from_secs(60),
        );
        assert_eq!(
            run.code,
            Some(0),
            "--jobs {jobs}: {}{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.stderr
                .contains(&format!("note: --jobs {jobs} lowered to")),
            "{}",
            run.stderr
        );
    }
}

/// An agent whose one rule adds `n` ones to a belief's field: Z3 needs memory in proportion to
/// `n`. (A sum of ones alone, `k = 1 + … + 1`, is now computed before Z3 sees it:
/// tests/hostile_conditions.rs.)
fn long_sum_project(n: usize) -> TempDir {
    let ones = vec!["1"; n].join(" + ");
    goal_project(&format!("B(self) n(k) ∧ B(self) n(j) ∧ k = j + {ones}"))
}

/// Runs `hilbert ARGS` with its address space capped at `kib` KiB (`ulimit -v`).
fn run_capped(kib: u64, args: &[&str]) -> common::Bounded {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_hilbert"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run sh");
    common::wait_within(child, &args.join(" "), Duration::from_secs(120))
}

#[test]
fn z3_out_of_memory_is_never_a_finding_nor_a_panic() {
    // Was (issue 32, items 1 and 7): under a memory cap, a rule summing 50,000 ones gave
    // HA0058 "realism violated" with empty worlds (Z3 answered `sat` with a model of nothing)
    // at every cap from 250 to 450 MiB, and one of 20,000 ones panicked in the z3 crate at 200
    // MiB. The windows move with the machine, so several caps are tried; at none may the check
    // report a violation or panic, and the questions Z3 failed on are named as such. The
    // default `--max-memory` is now half of the address-space limit, which stops the check
    // before Z3 fails (below); a bound over the limit lets Z3 fail as it did.
    let mut completed = 0;
    let mut failures_named = 0;
    for (n, caps) in [
        (20_000, &[220, 250, 280][..]),
        (50_000, &[250, 300, 350, 400, 450]),
    ] {
        let p = long_sum_project(n);
        for mib in caps {
            let run = run_capped(mib * 1024, &["check", &p.path(), "--max-memory", "8G"]);
            let all = format!("{}{}", run.stdout, run.stderr);
            assert!(
                !all.contains("HA0058") && !all.contains("panicked"),
                "{n} ones, cap {mib} MiB: {all}"
            );
            assert_ne!(run.code, Some(101), "{n} ones, cap {mib} MiB: {all}");
            if run.code == Some(0) {
                completed += 1;
                if all.contains("Z3 failed, most often for want of memory") {
                    failures_named += 1;
                }
            }
        }
    }
    assert!(
        completed > 0 && failures_named > 0,
        "{completed} {failures_named}"
    );
    // Without the flag the bound is half of the limit (`ulimit -v`): the check stops there,
    // exit 2, naming it; nothing failed. Was: the default was half of the machine's memory,
    // past the limit, so Z3 failed for want of address space instead (exit 0).
    let p = long_sum_project(50_000);
    let run = run_capped(450 * 1024, &["check", &p.path()]);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, Some(2), "{all}");
    assert!(
        run.stderr.contains("the check passed --max-memory 225 MiB")
            && !all.contains("HA0058")
            && !all.contains("Z3 failed"),
        "{all}"
    );
}

#[test]
fn a_journal_is_never_written_over_a_source_or_the_scenario() {
    // Was (issue 32, item 2): `run P --agent Operator --journal P/Line.hk` exited 0 and
    // replaced the plan with the journal.
    let p = project();
    std::fs::write(p.0.join("s.json"), br#"{"cycles": 3}"#).unwrap();
    std::fs::hard_link(p.0.join("Line.hk"), p.0.join("hard.txt")).unwrap();
    symlink(p.0.join("Operator.ha"), p.0.join("soft.jsonl"));
    let run = |journal: &str| {
        let args = [
            "run",
            &p.path(),
            "--agent",
            "Operator",
            "--scenario",
            &p.join("s.json"),
            "--journal",
            journal,
        ];
        run_within(&args, Duration::from_secs(60))
    };
    for (journal, what) in [
        ("Line.hk", "Line.hk"),
        ("hard.txt", "Line.hk"),
        ("soft.jsonl", "Operator.ha"),
        ("s.json", "s.json"),
    ] {
        let r = run(&p.join(journal));
        assert_eq!(
            r.code,
            Some(2),
            "--journal {journal}: {}{}",
            r.stdout,
            r.stderr
        );
        assert!(
            r.stderr.contains("would be written over") && r.stderr.contains(what),
            "--journal {journal}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("= help: "), "{}", r.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(p.0.join("Line.hk")).unwrap(),
        common::CLEAN_PLAN
    );
    assert_eq!(
        std::fs::read_to_string(p.0.join("Operator.ha")).unwrap(),
        common::CLEAN_AGENT
    );
    assert_eq!(
        std::fs::read_to_string(p.0.join("s.json")).unwrap(),
        r#"{"cycles": 3}"#
    );
    // Beside them, a journal is written as before.
    let r = run(&p.join("j.jsonl"));
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
}

#[test]
fn an_empty_path_is_a_usage_error() {
    // Was (issue 32, item 3): `build --out ""` wrote its certificates into the current
    // directory (the filesystem's root, for a build run there), exit 0.
    let p = project();
    let s = p.join("s.json");
    std::fs::write(&s, b"{}").unwrap();
    let here = TempDir::with_files(&[]);
    for (args, flag) in [
        (vec!["build", &p.path(), "--out", ""], "--out"),
        (vec!["build", &p.path(), "--out="], "--out"),
        (vec!["build", &p.path(), "--emit-smt", ""], "--emit-smt"),
        (
            vec!["build", &p.path(), "--emit-values", ""],
            "--emit-values",
        ),
        (vec!["build", &p.path(), "--trace-svg", ""], "--trace-svg"),
        (
            vec!["run", &p.path(), "--agent", "Operator", "--journal", ""],
            "--journal",
        ),
        (
            vec!["run", &p.path(), "--agent", "Operator", "--scenario", ""],
            "--scenario",
        ),
        (vec!["replay", &s, "--sources", ""], "--sources"),
        (vec!["verify", &s, "--sources", ""], "--sources"),
        (vec!["bench", "--plot", ""], "--plot"),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hilbert"));
        command.args(&args).current_dir(&here.0);
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("for '{flag} <")) && stderr.contains("an empty path"),
            "{args:?}: {stderr}"
        );
    }
    // Nothing was written where the commands ran.
    assert_eq!(std::fs::read_dir(&here.0).unwrap().count(), 0);
}

/// Runs `hilbert ARGS` (within a minute) and asserts its exit code.
fn ran(args: &[&str], code: i32) -> common::Bounded {
    let run = run_within(args, Duration::from_secs(60));
    assert_eq!(
        run.code,
        Some(code),
        "{args:?}: {}{}",
        run.stdout,
        run.stderr
    );
    run
}

/// Builds `p` into `out` with `--format json` and `extra`: the exit code, the report and standard error.
fn build_json(p: &TempDir, out: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let path = p.path();
    let args = [
        &["build", &path, "--out", out, "--format", "json"][..],
        extra,
    ]
    .concat();
    let run = run_within(&args, Duration::from_secs(120));
    let json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    (run.code, json, run.stderr)
}

#[test]
fn a_damaged_cache_is_a_stale_cache() {
    // Issue 32, items 4 and 6: a kept certificate truncated, flipped or of another project, or
    // a kept proof file with absurd numbers, is never a verdict nor a panic: the network is
    // explored again, the build says the cache was stale, and the next build reuses it again.
    let p = project();
    let other = TempDir::with_files(&[
        ("Operator.ha", common::CLEAN_AGENT.as_bytes()),
        (
            "Line.hk",
            b"plan Produce() : Operator \xe2\x89\x94 believe made(1) ; believe made(3)\n",
        ),
    ]);
    let (out, elsewhere) = (p.join("out"), other.join("out"));
    assert_eq!(build_json(&other, &elsewhere, &[]).0, Some(0));
    assert_eq!(build_json(&p, &out, &[]).0, Some(0));
    let cert = format!("{out}/Operator.Work.cert");
    let kept = format!("{out}/Operator.Work.proof.json");
    let good = std::fs::read(&cert).unwrap();
    let proof = std::fs::read_to_string(&kept).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 1;
    let huge = proof.replacen(
        '{',
        r#"{"states": 18446744073709551615, "transitions": -1e300, "#,
        1,
    );
    let reused = |report: &serde_json::Value| report["stats"]["networks"][0]["reused"].clone();
    type Damage = (&'static str, Vec<u8>, Option<String>);
    let damages: Vec<Damage> = vec![
        ("truncated", good[..good.len() / 3].to_vec(), None),
        ("flipped", flipped, None),
        (
            "of another project",
            std::fs::read(format!("{elsewhere}/Operator.Work.cert")).unwrap(),
            None,
        ),
        ("absent", Vec::new(), None),
        (
            "proof file not JSON",
            good.clone(),
            Some("{\"key\": \"".into()),
        ),
        (
            "proof file of numbers",
            good.clone(),
            Some(r#"{"key": 1e999, "certificate": 18446744073709551616}"#.into()),
        ),
        (
            "proof file naming no certificate",
            good.clone(),
            Some(proof.replace("\"certificate\"", "\"cert\"")),
        ),
    ];
    for (what, bytes, proof_text) in damages {
        if what == "absent" {
            std::fs::remove_file(&cert).unwrap();
        } else {
            std::fs::write(&cert, &bytes).unwrap();
        }
        std::fs::write(&kept, proof_text.as_deref().unwrap_or(&proof)).unwrap();
        let (code, report, stderr) = build_json(&p, &out, &[]);
        assert_eq!(code, Some(0), "{what}: {report}\n{stderr}");
        assert_eq!(report["admitted"], true, "{what}: {report}");
        assert_eq!(reused(&report), false, "{what}: {report}");
        assert!(
            stderr.contains("note: the kept proof of `Operator.Work`")
                && stderr.contains("stale")
                && stderr.contains("explored again"),
            "{what}: {stderr}"
        );
        // Repaired: the next build reuses it, and says nothing of a stale cache.
        let (code, report, stderr) = build_json(&p, &out, &[]);
        assert_eq!(
            (code, reused(&report)),
            (Some(0), true.into()),
            "{what}: {report}"
        );
        assert!(!stderr.contains("stale"), "{what}: {stderr}");
    }
    // Numbers a kept proof file holds beside what it names are read by nobody.
    std::fs::write(&kept, &huge).unwrap();
    let (code, report, stderr) = build_json(&p, &out, &[]);
    assert_eq!(
        (code, reused(&report)),
        (Some(0), true.into()),
        "{report}\n{stderr}"
    );
}

#[test]
fn stale_temporaries_are_cleaned_and_partial_outputs_removed() {
    // Issue 32, item 5: a build killed while writing a certificate left `*.cert.tmp-PID` (4–29
    // MB) that no later build removed; a full disk under --trace-svg left a 0-byte `.svg`.
    let p = project();
    let out = p.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // Process 4194305 is past Linux's largest pid: nobody. The test's own process is alive, so
    // its temporary may be a concurrent build's and stays.
    let dead = p.0.join("out/Operator.Work.cert.tmp-4194305");
    let dead_proof = p.0.join("out/Operator.Work.proof.json.tmp-4194305");
    let alive =
        p.0.join(format!("out/Operator.Work.cert.tmp-{}", std::process::id()));
    let mine = p.0.join("out/notes.tmp-4194305");
    for f in [&dead, &dead_proof, &alive, &mine] {
        std::fs::write(f, b"torn").unwrap();
    }
    let run = run_within(
        &["build", &p.path(), "--out", &out],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        !dead.exists() && !dead_proof.exists(),
        "stale temporaries stay"
    );
    assert!(alive.exists(), "a live process's temporary was removed");
    assert!(mine.exists(), "a file the build does not write was removed");
    // A picture that cannot be written whole is not left behind (`/dev/full` stands in for a
    // full disk: every write to it fails for want of space).
    let refuted = TempDir::with_files(&[
        ("Operator.ha", common::CLEAN_AGENT.as_bytes()),
        (
            "Line.hk",
            "plan Produce() : Operator ≔ believe made(1)\n".as_bytes(),
        ),
    ]);
    let traces = refuted.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let full = refuted
        .0
        .join("traces/Operator.Work.Work_live_Produced.svg");
    symlink("/dev/full", &full);
    let out = refuted.join("out");
    let run = ran(
        &[
            "build",
            &refuted.path(),
            "--out",
            &out,
            "--trace-svg",
            &traces,
        ],
        2,
    );
    assert!(run.stderr.contains("No space left"), "{}", run.stderr);
    assert!(
        std::fs::symlink_metadata(&full).is_err(),
        "the partial picture stays"
    );
}

#[test]
fn the_human_report_is_capped_and_says_how_much_more() {
    // Issue 32, items 11 and 13: every one of 100,000 errors was printed, and a 10 MB atom
    // gave a 20 MB message. The human report shows the first diagnostics and counts the rest;
    // a line of a diagnostic is cut in its middle. JSON keeps everything.
    let n = 3000;
    let agents: String = (0..n)
        .map(|i| format!("agent A{i}() : Agency {{ belief b(x: Nope) }}\n"))
        .collect();
    let p = TempDir::with_files(&[("A.ha", agents.as_bytes())]);
    let json = run_within(
        &["check", &p.path(), "--format", "json"],
        Duration::from_secs(60),
    );
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let all = report["diagnostics"].as_array().unwrap().len();
    assert!(all >= 2 * n, "{all}");
    let run = run_within(&["check", &p.path()], Duration::from_secs(60));
    assert_eq!(run.code, Some(1));
    let shown =
        run.stdout.matches("\n\nerror[").count() + run.stdout.matches("\n\nwarning[").count() + 1;
    assert_eq!(shown, 500);
    assert!(
        run.stdout
            .contains(&format!("… and {} more diagnostics not shown", all - shown)),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(600)..]
    );
    assert!(run.stdout.contains(&format!("error: {} errors", 2 * n)));
    // One huge line.
    let long = "x".repeat(1 << 20);
    let agent = format!("agent A() : Agency {{ belief b(x: {long}) }}\n");
    let p = TempDir::with_files(&[("A.ha", agent.as_bytes())]);
    let run = run_within(&["check", &p.path()], Duration::from_secs(60));
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.len() < 64 << 10, "{} bytes", run.stdout.len());
    assert!(
        run.stdout.contains("characters not shown"),
        "{}",
        run.stdout
    );
}

#[test]
fn cr_line_endings_and_a_byte_order_mark_are_read_as_text() {
    // Issue 32, item 13: CR-only line endings gave "HA0010 this file is empty" (a comment ran
    // to the end of the file), a UTF-8 byte order mark HA0001 with a hint about operators, and
    // one before a scenario or a journal "expected value at line 1 column 1".
    let agent = format!("-- the operator\n{}", common::CLEAN_AGENT);
    let cr = agent.replace('\n', "\r");
    let bom = format!("\u{feff}{agent}");
    for (what, text) in [("CR", cr.clone()), ("BOM", bom)] {
        let p = TempDir::with_files(&[
            ("Operator.ha", text.as_bytes()),
            ("Line.hk", common::CLEAN_PLAN.as_bytes()),
        ]);
        let run = run_within(&["check", &p.path()], SMALL);
        assert_eq!(run.code, Some(0), "{what}: {}{}", run.stdout, run.stderr);
    }
    // An error in a CR-only file is on its line.
    let broken = cr.replace("n < 3", "n < nope");
    let p = TempDir::with_files(&[
        ("Operator.ha", broken.as_bytes()),
        ("Line.hk", common::CLEAN_PLAN.as_bytes()),
    ]);
    let run = run_within(&["check", &p.path()], SMALL);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("Operator.ha:10:"), "{}", run.stdout);
    // A scenario and a journal that begin with a byte order mark.
    let p = project();
    std::fs::write(p.0.join("s.json"), "\u{feff}{\"cycles\": 3}").unwrap();
    let journal = p.join("j.jsonl");
    let scenario = p.join("s.json");
    let agent = ["run", &p.path(), "--agent", "Operator"];
    ran(
        &[
            &agent[..],
            &["--scenario", &scenario, "--journal", &journal],
        ]
        .concat(),
        0,
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(&journal, format!("\u{feff}{text}")).unwrap();
    ran(&["replay", &journal], 0);
}

#[test]
fn a_full_standard_output_is_named_as_such() {
    // Issue 32, item 13: `run > /dev/full` hinted "choose a writable path for --journal" though
    // no journal was given.
    let p = project();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(["run", &p.path(), "--agent", "Operator"])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write standard output"), "{stderr}");
    assert!(
        !stderr.contains("choose a writable path for --journal"),
        "{stderr}"
    );
}

#[test]
fn a_max_states_stop_is_reported_without_a_kernel_check() {
    // Issue 32, item 10: a --max-states stop wrote the partial certificate and had the kernel
    // check it, which refuses it as not closed only at its last state (10 M states: 19 s of
    // search, then 288 s of kernel). Such a certificate is no longer written, as for
    // --max-memory: the stop is reported at once.
    let p = wide_project(24);
    let out = p.join("out");
    let (code, report, stderr) = build_json(&p, &out, &["--max-states", "5000"]);
    assert_eq!(code, Some(2), "{report}\n{stderr}");
    let network = &report["stats"]["networks"][0];
    assert_eq!(network["certificate_written"], false, "{network}");
    assert_eq!(network["kernel_seconds"], 0.0, "{network}");
    assert!(!p.0.join("out/A.W.cert").exists());
    for t in report["theorems"].as_array().unwrap() {
        assert_eq!(t["status"], "unproved", "{t}");
        assert!(
            t["reason"].as_str().unwrap().contains("--max-states 5000"),
            "{t}"
        );
        assert!(
            t["kernel_reason"]
                .as_str()
                .unwrap()
                .contains("no certificate was written"),
            "{t}"
        );
    }
}

#[test]
fn a_long_disjunction_is_encoded_in_bounded_memory() {
    // Issue 32, item 8: a rule of 1,000 disjuncts (19 KB) took 2.09 GB (4.1 GB here, 42 s), as
    // each belief test read a slot per test of its predicate. A test of a ground atom now reads
    // its atom's slot (tests/hostile_conditions.rs); tests binding a variable still read a slot
    // per test, and past a budget of slots read the encoding gives up: the frame condition is
    // unproved (HA0059), never an error.
    let ors: Vec<String> = (0..1000)
        .map(|i| format!("(B(self) n(k) ∧ k = {i})"))
        .collect();
    let p = goal_project(&ors.join(" ∨ "));
    let run = run_within(&["check", &p.path()], Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("belief slots read"), "{}", run.stdout);
    let peak = children_peak_bytes();
    assert!(peak < ONE_GIB, "a child peaked at {peak} bytes");
}

#[test]
fn a_diverging_step_names_the_limit() {
    // Issue 32, item 13: a 100,000-step straight-line plan was "refuted … it diverges" without
    // naming the limit it passed.
    let p = wide_project(0);
    let body: Vec<String> = (0..100_001).map(|i| format!("believe s({i})")).collect();
    let plan = format!("plan Wide() : A ≔ {}\n", body.join(" ; "));
    std::fs::write(p.0.join("P.hk"), plan).unwrap();
    let (code, report, stderr) = build_json(&p, &p.join("out"), &[]);
    assert_eq!(code, Some(1), "{report}\n{stderr}");
    let text = report.to_string();
    assert!(
        text.contains("it diverges: the semantics runs at most 100000 nodes"),
        "{}",
        &text[..text.len().min(3000)]
    );
}
