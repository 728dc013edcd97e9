//! Writes a dining-philosophers project:
//! `gen-philosophers --n N [--symmetric] --out DIR`.

use std::process::ExitCode;

const USAGE: &str = "usage: gen-philosophers --n N [--symmetric] --out DIR  (N ≥ 2)";

fn main() -> ExitCode {
    let mut n = None;
    let mut symmetric = false;
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--n" => n = args.next().and_then(|v| v.parse::<usize>().ok()),
            "--symmetric" => symmetric = true,
            "--out" => out = args.next(),
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unexpected argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(n), Some(out)) = (n.filter(|&n| n >= 2), out) else {
        eprintln!("error: --n N (N ≥ 2) and --out DIR are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let dir = std::path::Path::new(&out);
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create `{out}`: {e}");
        return ExitCode::from(2);
    }
    for (name, text) in hilbert_benchmarks::philosophers(n, symmetric) {
        let path = dir.join(&name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
