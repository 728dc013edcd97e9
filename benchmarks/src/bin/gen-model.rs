//! Writes the project of any generated model of the suite:
//! `gen-model --model NAME --n N [--k K] --out DIR`.

use std::process::ExitCode;

const USAGE: &str = "usage: gen-model --model NAME --n N [--k K] --out DIR
  NAME: philosophers-symmetric | philosophers-asymmetric | philosophers-plain | token-ring | cyclic-scheduler | pipeline
        | seq | par | files (the scaling shapes: N + 1 sequential believes, N relayed channels, N agents in 2N files)";

fn main() -> ExitCode {
    let (mut model, mut n, mut k, mut out) = (None, None, 3usize, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--model" => model = args.next(),
            "--n" => n = args.next().and_then(|v| v.parse::<usize>().ok()),
            "--k" => {
                k = args
                    .next()
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0)
            }
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
    let (Some(model), Some(n), Some(out)) = (model, n, out) else {
        eprintln!("error: --model, --n and --out are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let files = match hilbert_benchmarks::generate(&model, n, k) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let dir = std::path::Path::new(&out);
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create `{out}`: {e}");
        return ExitCode::from(2);
    }
    for (name, text) in files {
        let path = dir.join(&name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
