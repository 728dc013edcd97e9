//! Bad input never crashes `hilbert check`: each input below gives a clear diagnostic (or an
//! environment error) and exit code 1 or 2 — never a panic (exit 101), never a signal such as a
//! stack overflow, never a hang.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("hilbert-robust-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `hilbert check PATH --format json` and returns the exit code and the codes reported.
fn check(path: &Path) -> (i32, Vec<String>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .arg("check")
        .arg(path)
        .args(["--format", "json"])
        .output()
        .expect("run hilbert");
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {:?}", out.status));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "hilbert panicked on {}: {stderr}",
        path.display()
    );
    let codes = serde_json::from_str::<serde_json::Value>(&stdout)
        .ok()
        .and_then(|v| v["diagnostics"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect();
    (code, codes, stderr)
}

fn refused_with(path: &Path, want: &str) {
    let (code, codes, stderr) = check(path);
    assert_eq!(
        code,
        1,
        "{}: exit {code}, {codes:?} {stderr}",
        path.display()
    );
    assert!(
        codes.iter().any(|c| c == want),
        "{}: {codes:?}",
        path.display()
    );
}

#[test]
fn a_hundred_thousand_nested_parentheses() {
    let s = Scratch::new("parens");
    let n = 100_000;
    let text = format!("plan P() : A ≔ {}SKIP{}\n", "(".repeat(n), ")".repeat(n));
    refused_with(&s.write("Deep.hk", text.as_bytes()), "HK0007");
    let text = format!(
        "agent A() {{ intend P for D when {}true{} }}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    refused_with(&s.write("Deep.ha", text.as_bytes()), "HA0007");
}

#[test]
fn four_kibibytes_of_random_bytes() {
    let s = Scratch::new("random");
    // A fixed xorshift stream: the same bytes on every run.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    refused_with(&s.write("noise.ha", &bytes), "HA0005");
    // The same noise made valid UTF-8 reaches the lexer and parser.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (code, codes, _) = check(&s.write("noise.hk", text.as_bytes()));
    assert_eq!(code, 1);
    assert!(
        !codes.is_empty()
            && codes
                .iter()
                .all(|c| c.starts_with("HK") || c.starts_with("HA"))
    );
}

#[test]
fn invalid_utf8() {
    let s = Scratch::new("utf8");
    refused_with(
        &s.write("bad.hk", b"plan P() : A \xff\xfe SKIP\n"),
        "HK0005",
    );
}

#[test]
fn an_empty_file() {
    let s = Scratch::new("empty");
    refused_with(&s.write("empty.ha", b""), "HA0010");
}

#[test]
fn a_ten_megabyte_file() {
    let s = Scratch::new("big");
    let line = "plan P(c: chan Int, n: Int) : A ≔ n → c ; x ← c ; believe made(x + 1) ; SKIP\n";
    let text = line.repeat(10 * 1024 * 1024 / line.len() + 1);
    let (code, codes, stderr) = check(&s.write("Big.hk", text.as_bytes()));
    // Refused (the agent `A` is not declared, the plans are duplicates), quickly and in order.
    assert_eq!(code, 1, "{stderr}");
    assert!(!codes.is_empty());
}

#[test]
fn a_truncated_file() {
    let s = Scratch::new("truncated");
    let seed = include_str!("../examples/production-line/Line.hk");
    let cut = seed.find("on abort ≔ believe halted(0)").unwrap() + 12;
    s.write(
        "Operator.ha",
        include_bytes!("../examples/production-line/Operator.ha"),
    );
    s.write("Line.hk", &seed.as_bytes()[..cut]);
    let (code, codes, _) = check(&s.0);
    assert_eq!(code, 1);
    assert!(
        codes.iter().any(|c| c == "HK0009" || c == "HK0006"),
        "{codes:?}"
    );
}

#[test]
fn a_missing_path_is_an_environment_error() {
    let (code, codes, stderr) = check(Path::new("/nonexistent/hilbert/project"));
    assert_eq!(code, 2);
    assert!(codes.is_empty());
    assert!(stderr.contains("/nonexistent/hilbert/project"), "{stderr}");
}

#[test]
fn two_builds_writing_one_out_directory_never_leave_a_torn_certificate() {
    let out = std::env::temp_dir().join(format!("hilbert-two-builds-{}", std::process::id()));
    let out_s = out.to_string_lossy().into_owned();
    for _ in 0..3 {
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_hilbert"))
                .args([
                    "build",
                    "examples/production-line",
                    "--out",
                    &out_s,
                    "--format",
                    "json",
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("starts")
        };
        let (mut a, mut b) = (spawn(), spawn());
        assert_eq!(a.wait().unwrap().code(), Some(0));
        assert_eq!(b.wait().unwrap().code(), Some(0));
        let names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        // Certificates and the proofs kept for incremental builds, nothing half-written.
        assert!(
            names
                .iter()
                .all(|n| n.ends_with(".cert") || n.ends_with(".proof.json")),
            "left behind: {names:?}"
        );
        for n in names.iter().filter(|n| n.ends_with(".proof.json")) {
            let text = std::fs::read_to_string(out.join(n)).unwrap();
            assert!(
                serde_json::from_str::<serde_json::Value>(&text).is_ok(),
                "torn: {n}"
            );
        }
        let certs: Vec<String> = names
            .iter()
            .filter(|n| n.ends_with(".cert"))
            .map(|n| format!("{out_s}/{n}"))
            .collect();
        let mut args = vec!["verify"];
        args.extend(certs.iter().map(String::as_str));
        let run = Command::new(env!("CARGO_BIN_EXE_hilbert"))
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
