//! The long differential run: random projects, the build against the oracle (oracle/README.md).

use hilbert_oracle::pipeline::{self, Outcome, Sources};

fn read_dir(dir: &str, params: &[String]) -> Sources {
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let s = p.to_string_lossy().to_string();
        if s.ends_with(".ha") || s.ends_with(".hk") || s.ends_with(".hb") {
            files.push((s.clone(), std::fs::read_to_string(&p).expect("readable")));
        }
    }
    Sources {
        files,
        params: params.to_vec(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--project") {
        let dir = &args[1];
        let params: Vec<String> = args[2..].to_vec();
        match pipeline::run(&read_dir(dir, &params), 50_000) {
            Outcome::Refused(codes) => println!("{dir}: refused {codes:?}"),
            Outcome::Compared {
                disagreements,
                compared,
                undecided,
            } => {
                println!(
                    "{dir}: {compared} compared, {undecided} undecided, {} disagreements",
                    disagreements.len()
                );
                for d in disagreements {
                    println!("  {}  [{}]", d.detail, d.class);
                }
            }
        }
    }
}
