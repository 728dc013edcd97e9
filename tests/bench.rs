//! `hilbert bench`: the suite runs, its verdicts are computed and compared, a wrong expectation
//! fails the run, `--plot` writes the charts, and `--peers` either runs Spin or says plainly
//! that it cannot. Only the `smoke` suite's tiny sizes run here; speed is measured by
//! `hilbert bench` itself, never by a test.

mod common;

use common::{TempDir, hilbert};
use std::process::Command;

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A models directory with one model: the token ring, with these suites and expectations.
fn token_ring_models(suites: &str, no_deadlock: &str) -> TempDir {
    let toml = format!(
        "description = \"a token ring\"
generator = \"token-ring\"
peer = \"token-ring.pml\"

[suites]
{suites}

[expected]
Token_no_deadlock = \"{no_deadlock}\"
Circulate_live_Served = \"refuted\"
"
    );
    TempDir::with_files(&[("token-ring/bench.toml", toml.as_bytes())])
}

#[test]
fn the_smoke_suite_runs_every_model_and_every_verdict_is_as_expected() {
    let run = hilbert(&["bench", "smoke", "--format", "json", "--jobs", "1"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report = json(&run.stdout);
    assert_eq!(report["ok"], true);
    let rows = report["rows"].as_array().unwrap();
    let models: Vec<&str> = rows.iter().map(|r| r["model"].as_str().unwrap()).collect();
    for m in [
        "cyclic-scheduler",
        "philosophers-asymmetric",
        "philosophers-plain",
        "philosophers-symmetric",
        "pipeline",
        "production-line",
        "token-ring",
    ] {
        assert!(models.contains(&m), "{m} missing from {models:?}");
    }
    for r in rows {
        assert_eq!(r["verdict"], "ok", "{r}");
        assert!(r["states"].as_u64().unwrap() > 0, "{r}");
        assert!(r["transitions"].as_u64().unwrap() > 0, "{r}");
        assert!(r["kernel_s"].as_f64().unwrap() >= 0.0, "{r}");
        // Certifying is a part of proving, and each phase has its own peak (Linux).
        assert!(
            r["certify_s"].as_f64().unwrap() <= r["prove_s"].as_f64().unwrap(),
            "{r}"
        );
        if cfg!(target_os = "linux") {
            for phase in ["explore_peak_rss", "prove_peak_rss", "kernel_peak_rss"] {
                let peak = r[phase].as_u64().unwrap_or(0);
                assert!(
                    peak > 0 && peak <= r["peak_rss"].as_u64().unwrap(),
                    "{phase}: {r}"
                );
            }
        }
        assert_eq!(r["jobs"], 1);
        // Every theorem was decided, and the kernel admitted exactly the proved ones.
        for t in r["theorems"].as_array().unwrap() {
            assert_eq!(t["status"], t["expected"], "{t}");
            let proved = t["status"] == "proved";
            assert_eq!(t["kernel"] == "proved", proved, "{t}");
        }
    }
    // The seed's production line: its six theorems (`Work_released_Produced`, over the alarm
    // arriving from outside, and `Produce_abortable` among them), all proved.
    let line = rows
        .iter()
        .find(|r| r["model"] == "production-line")
        .unwrap();
    assert_eq!(line["theorems"].as_array().unwrap().len(), 6);
    // The token ring of 3: 3 · 2⁴ states.
    let ring = rows.iter().find(|r| r["model"] == "token-ring").unwrap();
    assert_eq!(ring["states"], 48);
}

/// The scaling rows (issue 14): each shape's smoke size is the whole `hilbert build` of its
/// generated project, run in a process of its own; every theorem of every network proved and
/// admitted, and the row says the input's size, the wall time and the build's peak memory.
#[test]
fn the_scaling_rows_build_each_shape_end_to_end_with_the_expected_verdicts() {
    let run = hilbert(
        &[
            "bench", "smoke", "scaling", "--format", "json", "--jobs", "1",
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report = json(&run.stdout);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(
        report["rows"].as_array().unwrap().len(),
        0,
        "only scaling rows"
    );
    let rows = report["scaling"].as_array().unwrap();
    let shapes: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| (r["model"].as_str().unwrap(), r["n"].as_u64().unwrap()))
        .collect();
    assert_eq!(shapes, [("files", 3), ("par", 5), ("seq", 10)]);
    for r in rows {
        assert_eq!(r["verdict"], "ok", "{r}");
        assert_eq!(r["mismatches"].as_array().unwrap().len(), 0, "{r}");
        assert_eq!(r["admitted"], true, "{r}");
        assert_eq!(r["exit_code"], 0, "{r}");
        assert_eq!(r["jobs"], 1, "{r}");
        // Two theorems (no deadlock, the desire reached) in each agent's network, all proved.
        let networks = r["networks"].as_u64().unwrap();
        assert_eq!(r["theorems"].as_u64().unwrap(), 2 * networks, "{r}");
        assert_eq!(r["proved"], r["theorems"], "{r}");
        assert!(r["input_bytes"].as_u64().unwrap() > 100, "{r}");
        let wall = r["wall_s"].as_f64().unwrap();
        assert!(wall > 0.0 && wall < 60.0, "{r}");
        // The build's own phases fit inside the wall time of its process.
        let phases = r["prove_s"].as_f64().unwrap() + r["kernel_s"].as_f64().unwrap();
        assert!(phases <= wall, "{r}");
        if cfg!(target_os = "linux") {
            let peak = r["peak_rss"].as_u64().unwrap();
            assert!(peak > 1 << 20 && peak < 4 << 30, "{r}");
            let per_byte = r["peak_bytes_per_input_byte"].as_f64().unwrap();
            let input = r["input_bytes"].as_u64().unwrap();
            assert!((per_byte * input as f64 - peak as f64).abs() < 1.0, "{r}");
        }
        assert!(r["time_exponent"].is_null(), "one size a shape: {r}");
        assert!(r.get("memory_exponent").is_some(), "{r}");
    }
    let row = |m: &str| rows.iter().find(|r| r["model"] == m).unwrap();
    // files 3: six files, three networks; par 5: six processes, a state after each hand-over;
    // seq 10: one macro-step, two states.
    assert_eq!(
        (
            row("files")["files"].as_u64(),
            row("files")["networks"].as_u64()
        ),
        (Some(6), Some(3))
    );
    assert_eq!(row("par")["states"], 6);
    assert_eq!(
        (row("seq")["files"].as_u64(), row("seq")["states"].as_u64()),
        (Some(2), Some(2))
    );
}

/// Two sizes of one scaling shape: the table of the human report, the growth exponent, and the
/// log–log charts of `--plot`.
#[test]
fn scaling_rows_have_their_table_and_charts() {
    let models = TempDir::with_files(&[(
        "seq/bench.toml",
        b"description = \"seq\"\ngenerator = \"seq\"\nkind = \"scaling\"\n\n[suites]\nsmoke = [10, 100]\n\n[expected]\nRun_no_deadlock = \"proved\"\nGo_live_Done = \"proved\"\n",
    )]);
    let out = TempDir::with_files(&[]);
    let dir = out.join("charts");
    let run = hilbert(
        &["bench", "smoke", "--models", &models.path(), "--plot", &dir],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let header = run
        .stdout
        .lines()
        .find(|l| l.starts_with("| model"))
        .unwrap();
    let columns: Vec<&str> = header
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        columns,
        [
            "model",
            "N",
            "files",
            "input",
            "states",
            "wall s",
            "prove s",
            "kernel s",
            "peak memory",
            "bytes/byte",
            "k time",
            "k memory",
            "proved",
            "verdict"
        ]
    );
    let second = run
        .stdout
        .lines()
        .find(|l| l.starts_with("| seq") && l.contains("| 100 "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let k: f64 = second
        .split('|')
        .map(str::trim)
        .nth(10)
        .unwrap()
        .parse()
        .unwrap();
    assert!(k.is_finite(), "{second}");
    for chart in ["scaling-time.svg", "scaling-memory.svg"] {
        let svg = std::fs::read_to_string(out.0.join("charts").join(chart)).unwrap();
        assert!(
            svg.starts_with("<svg")
                && svg.contains(">seq<")
                && svg.matches("(log scale)").count() == 2,
            "{chart}: {svg}"
        );
    }
    // No state-space row ran, so no state-space chart.
    assert!(!out.0.join("charts").join("time.svg").exists());
}

#[test]
fn the_human_table_has_the_columns_of_the_issue() {
    let run = hilbert(&["bench", "smoke", "token-ring"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let header = run
        .stdout
        .lines()
        .find(|l| l.starts_with("| model"))
        .unwrap();
    let columns: Vec<&str> = header
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        columns,
        [
            "model",
            "N",
            "states",
            "transitions",
            "explore s",
            "kernel s",
            "states/s",
            "bytes/state",
            "peak memory",
            "verdict"
        ]
    );
    assert!(run.stdout.contains("| token-ring"), "{}", run.stdout);
    assert!(
        run.stdout.contains("every verdict as expected"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_verdict_that_differs_from_the_expected_one_fails_the_run() {
    let models = token_ring_models("smoke = [3]", "refuted");
    let run = hilbert(&["bench", "smoke", "--models", &models.path()], None);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("MISMATCH token-ring N=3: Token_no_deadlock: expected refuted, got proved"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_word_that_is_neither_a_suite_nor_a_model_is_a_usage_error() {
    let run = hilbert(&["bench", "no-such-thing"], None);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("neither a suite nor a model"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn plot_writes_the_three_charts() {
    let models = token_ring_models("smoke = [2, 3]", "proved");
    let out = TempDir::with_files(&[]);
    let dir = out.join("charts");
    let run = hilbert(
        &["bench", "smoke", "--models", &models.path(), "--plot", &dir],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    for chart in ["time.svg", "memory.svg", "states-per-sec.svg"] {
        let svg = std::fs::read_to_string(out.0.join("charts").join(chart)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("token-ring"),
            "{chart}: {svg}"
        );
    }
}

fn spin_present() -> bool {
    let runs = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    runs("spin", "-V") && runs("cc", "--version")
}

/// With no Spin on the PATH, `--peers` says so plainly and the table is still printed.
#[test]
fn peers_without_spin_say_so() {
    let empty = TempDir::with_files(&[]);
    let out = Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(["bench", "smoke", "token-ring", "--peers"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("| token-ring"), "{stdout}");
    assert!(
        stdout.contains("peers: not run: spin not found on the PATH"),
        "{stdout}"
    );
}

/// `--peers` runs Spin when it is there (and otherwise must say it is not: never a quiet skip).
/// The token ring's peer has exactly the state graph of the Hilbert model, so the counts agree.
#[test]
fn peers_run_spin_when_it_is_present_or_say_it_is_not() {
    let run = hilbert(
        &[
            "bench",
            "smoke",
            "token-ring",
            "--peers",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report = json(&run.stdout);
    let row = &report["rows"][0];
    if spin_present() {
        assert!(report["peers_unavailable"].is_null(), "{report}");
        let spin = &row["spin"];
        assert_eq!(spin["full"]["states"], row["states"], "{spin}");
        assert_eq!(spin["default"]["states"], row["states"], "{spin}");
        assert_eq!(spin["default"]["deadlock"], false);
        assert_eq!(spin["agrees"], true);
        assert!(spin["states_per_sec_ratio"].as_f64().unwrap() > 0.0);
    } else {
        assert!(
            report["peers_unavailable"]
                .as_str()
                .is_some_and(|m| m.contains("spin not found") || m.contains("no C compiler")),
            "{report}"
        );
        assert!(row["spin"].is_null());
    }
}

/// The legend entries of a chart: (colour, dash pattern, name).
fn legend(svg: &str) -> Vec<(String, String, String)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("stroke-width") == Some("2"))
        .map(|n| {
            let name = n
                .next_sibling_element()
                .into_iter()
                .chain(n.next_siblings().filter(|s| s.has_tag_name("text")))
                .find(|s| s.has_tag_name("text"))
                .and_then(|t| t.text())
                .unwrap_or_default()
                .to_string();
            (
                n.attribute("stroke").unwrap().to_string(),
                n.attribute("stroke-dasharray").unwrap_or("").to_string(),
                name,
            )
        })
        .collect()
}

#[test]
fn bench_smoke_plot_charts_show_every_series_and_no_two_look_alike() {
    // Issue 33: `bench smoke --plot` wrote five of seven charts with axes and nothing else (one
    // size per model is no line, and single points were left out), the default-size charts gave
    // two series one colour, and a "(Spin dashed)" label with no Spin run.
    let out = TempDir::with_files(&[]);
    let dir = out.join("charts");
    let empty_path = TempDir::with_files(&[]);
    let run = Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(["bench", "smoke", "--plot", &dir])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // No Spin, whatever this machine has: no Spin series may be drawn or named.
        .env("PATH", empty_path.path())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut charts = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let svg = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let series = legend(&svg);
        assert!(!series.is_empty(), "{name}: no series");
        // Every series has its points drawn: at least as many markers as series.
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let markers = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") || n.attribute("class") == Some("point"))
            .count();
        assert!(
            markers >= 2 * series.len(),
            "{name}: {markers} markers for {} series",
            series.len()
        );
        // No two series drawn alike.
        let mut looks: Vec<(&str, &str)> = series
            .iter()
            .map(|(c, d, _)| (c.as_str(), d.as_str()))
            .collect();
        looks.sort_unstable();
        let n = looks.len();
        looks.dedup();
        assert_eq!(looks.len(), n, "{name}: two series look alike: {series:?}");
        assert!(
            !svg.contains("Spin"),
            "{name} names Spin, which did not run"
        );
        assert!(!svg.contains("no data"), "{name}");
        charts += 1;
    }
    assert_eq!(charts, 7);
}
