//! The `verify --dump` listing is the IR written as Hilbert source, and lowering that source
//! again gives the certificate's IR byte for byte (issue 29, "Lowering is total or it
//! refuses"): over every certificate of every example's build, over every network of the test
//! corpus (`tests/cases/`) that lowers, and over a few hundred random projects.

mod common;

use common::{TempDir, hilbert};
use hilbert_certificates::cert::{self, Body};
use hilbert_certificates::ir::Ir;
use hilbert_frontend::listing::{self, roundtrip};
use std::path::{Path, PathBuf};

/// A project's files, as (name, text).
type Files = Vec<(String, String)>;
/// Agent `A`'s parameter values.
type Params = Vec<(String, hilbert_certificates::ir::Literal)>;

/// The certificate body of network `n` of `ir` as a build writes it, but for its states and
/// witnesses (the listing's source is its IR alone).
fn body(ir: &Ir, n: usize) -> Body {
    let slice = ir.slice(n).expect("a network of the IR");
    Body {
        tool: "hilbert test".into(),
        sources: vec![],
        ir_sha256: cert::sha256(&cert::ir_bytes(&slice)),
        ir: slice,
        network: 0,
        scene: Default::default(),
        witnesses: vec![],
    }
}

/// Loads and lowers a project with these `--param` values.
fn lower(paths: &[String], params: &[&str]) -> Result<Ir, String> {
    let loaded = hilbert_frontend::project::load(paths).map_err(|e| e.to_string())?;
    let specs: Vec<_> = params
        .iter()
        .map(|p| hilbert_frontend::ParamSpec::parse(p).unwrap())
        .collect();
    let checked =
        hilbert_frontend::check_project_params(&loaded, hilbert_smt::Options::default(), &specs)?;
    checked
        .ir
        .ok_or_else(|| format!("{} diagnostics", checked.diagnostics.len()))
}

/// Every network of `ir` round-trips; the failures, named.
fn round_trip_all(what: &str, ir: &Ir) -> Vec<String> {
    let mut failures = Vec::new();
    for n in 0..ir.networks.len() {
        if let Err(e) = roundtrip::round_trip_network(ir, n) {
            let text = listing::listing(what, &body(ir, n));
            failures.push(format!("{what} network {n}: {e}\n{text}"));
        }
    }
    failures
}

fn dirs(under: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(under)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_network_of_the_corpus_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut networks = 0;
    let mut failures = Vec::new();
    for dir in dirs(&root.join("tests/cases")) {
        let Ok(ir) = lower(&[dir.display().to_string()], &[]) else {
            continue;
        };
        networks += ir.networks.len();
        failures.extend(round_trip_all(&dir.display().to_string(), &ir));
    }
    eprintln!("{networks} networks of tests/cases/, each round-trips");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(networks >= 5, "only {networks} networks in the corpus");
}

#[test]
fn every_certificate_of_every_example_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = TempDir::with_files(&[]);
    let mut builds: Vec<(PathBuf, Vec<&str>)> = dirs(&root.join("examples"))
        .into_iter()
        .map(|d| (d, vec![]))
        .collect();
    // The parameters example with a value too: the listing gives it back as `--param`.
    builds.push((root.join("examples/agent-parameters"), vec!["target=3"]));
    let mut certificates = 0;
    let mut failures = Vec::new();
    for (i, (dir, params)) in builds.iter().enumerate() {
        let into = out.join(&i.to_string());
        let mut args = vec!["build", dir.to_str().unwrap(), "--out", &into];
        for p in params {
            args.extend(["--param", p]);
        }
        let run = hilbert(&args, None);
        assert!(run.code.is_some(), "{}", run.stderr);
        let mut certs: Vec<PathBuf> = std::fs::read_dir(&into)
            .map(|r| r.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        certs.retain(|p| p.extension().is_some_and(|e| e == "cert"));
        certs.sort();
        assert!(!certs.is_empty(), "{}: no certificate", dir.display());
        // `hilbert verify --dump` checks the round trip of each, and says so.
        let mut dump = vec!["verify", "--dump"];
        let shown: Vec<String> = certs.iter().map(|p| p.display().to_string()).collect();
        dump.extend(shown.iter().map(String::as_str));
        let listed = hilbert(&dump, None);
        let checked = listed
            .stdout
            .lines()
            .filter(|l| l.starts_with("--   round trip  checked: "))
            .count();
        if checked != certs.len() {
            failures.push(format!(
                "{}: `verify --dump` checked {checked} of {} round trips:\n{}",
                dir.display(),
                certs.len(),
                listed.stdout
            ));
        }
        for path in certs {
            let bytes = std::fs::read(&path).unwrap();
            let body = cert::decode(&bytes).expect("a build's certificate decodes");
            certificates += 1;
            let shown = path.display().to_string();
            if let Err(e) = roundtrip::round_trip(&shown, &body) {
                failures.push(format!("{shown}: {e}\n{}", listing::listing(&shown, &body)));
            }
        }
    }
    eprintln!(
        "{certificates} certificates of {} example builds, each round-trips",
        builds.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(certificates >= 20, "only {certificates} certificates");
}

// ------------------------------------------------------------------ random projects

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A random well-typed project: agent `A` (parameters `t: Int`, `go: Bool`, `s: String`, each
/// given a value or not) and sometimes agent `C`, whom A's plans tell and A's conditions ask
/// about (`B(C)`); desires with priorities and conditions of every operator (computed pattern
/// arguments, conditions compared with `=`, attention, parameters); bindings passing computed
/// arguments, one to host code; plans using every process form (‖, □, △, labels and commands on
/// them and on `self`, `match` with negative, Bool and String arms, tail and non-tail calls,
/// sends and receives, handlers, left-nested sequences) and every expression form; and
/// sometimes a `.hb` block. Returns the files and the parameter values.
fn project(rng: &mut Rng) -> (Files, Params) {
    use hilbert_certificates::ir::Literal;
    let told = rng.chance(50);
    let mut params = Vec::new();
    if rng.chance(60) {
        params.push(("t".to_string(), Literal::Int(rng.below(7) as i64 - 3)));
    }
    if rng.chance(50) {
        params.push(("go".to_string(), Literal::Bool(rng.chance(50))));
    }
    if rng.chance(40) {
        params.push(("s".to_string(), Literal::Str("a \"q\" \\ b".into())));
    }
    // Conditions over A's beliefs, with `n` bound first when `bound`.
    let int_term = |rng: &mut Rng, bound: bool| -> String {
        let leaves: Vec<&str> = if bound {
            vec!["n", "t", "1", "-2", "0"]
        } else {
            vec!["t", "1", "-2", "3"]
        };
        match rng.below(6) {
            0 => format!("{} + {}", rng.pick(&leaves), rng.pick(&leaves)),
            1 => format!(
                "{} - {} + {}",
                rng.pick(&leaves),
                rng.pick(&leaves),
                rng.pick(&leaves)
            ),
            2 => format!(
                "({} + {}) * {}",
                rng.pick(&leaves),
                rng.pick(&leaves),
                rng.pick(&leaves)
            ),
            3 => format!(
                "-{}",
                rng.pick(&["n", "t", "(1 + t)"][usize::from(!bound)..])
            ),
            4 => format!("{} % 2 * {}", rng.pick(&leaves), rng.pick(&leaves)),
            _ => rng.pick(&leaves).to_string(),
        }
    };
    fn cond(
        rng: &mut Rng,
        depth: usize,
        told: bool,
        int_term: &dyn Fn(&mut Rng, bool) -> String,
    ) -> String {
        // A condition that binds nothing when `positive` is false (under `not`, in `=`).
        let leaf = |rng: &mut Rng, positive: bool| -> String {
            match rng.below(13) {
                0 => format!(
                    "B(self) done({})",
                    rng.pick(&["1", "-1", "_", "t", "t + 1", "-t", "2 * t"])
                ),
                1 if positive => format!(
                    "B(self) done(n) and n {} {}",
                    rng.pick(&["<", "<=", "=", "!=", ">", ">="]),
                    int_term(rng, true)
                ),
                2 if positive => {
                    format!("B(self) pair(n, {})", rng.pick(&["_", "2", "t * 2", "-1"]))
                }
                3 => format!(
                    "B(self) flag({})",
                    rng.pick(&["true", "go", "not go", "1 < t", "_"])
                ),
                4 => format!(
                    "B(self) tag({})",
                    rng.pick(&["\"x\"", "s", "_", "\"a\\\"b\""])
                ),
                5 => rng.pick(&["attending Calm", "attending Busy"]).to_string(),
                6 => rng.pick(&["true", "false", "go", "not go"]).to_string(),
                7 => format!("{} < {}", int_term(rng, false), int_term(rng, false)),
                8 if told => format!("B(C) got({})", rng.pick(&["1", "_", "t"])),
                9 => rng
                    .pick(&["s = \"a\"", "s != \"q\"", "go = true", "t = 2", "-t = t"])
                    .to_string(),
                10 if positive => format!(
                    "B(self) done(n) and B(self) pair(n + 1, {})",
                    rng.pick(&["n", "_", "n * 2", "-n"])
                ),
                _ => format!("B(self) done({})", rng.pick(&["0", "2", "-3"])),
            }
        };
        if depth == 0 {
            return leaf(rng, true);
        }
        match rng.below(7) {
            0 => format!(
                "{} and {}",
                cond(rng, depth - 1, told, int_term),
                cond(rng, depth - 1, told, int_term)
            ),
            1 => format!(
                "({}) or ({})",
                cond(rng, depth - 1, told, int_term),
                cond(rng, depth - 1, told, int_term)
            ),
            2 => format!("not ({})", leaf(rng, false)),
            3 => format!("({}) = ({})", leaf(rng, false), leaf(rng, false)),
            4 => format!(
                "({}) != (B(self) flag(true))",
                rng.pick(&["B(self) done(2)", "not go", "t > 1"])
            ),
            _ => leaf(rng, true),
        }
    }
    let c = |rng: &mut Rng| {
        let depth = rng.below(3);
        cond(rng, depth, told, &int_term)
    };
    let mut ha = String::new();
    let declared: Vec<&str> = ["t: Int", "go: Bool", "s: String"].to_vec();
    ha.push_str(&format!("agent A({}) : Agency\n{{\n", declared.join(", ")));
    ha.push_str("  belief done(n: Int)\n  belief pair(a: Int, b: Int)\n  belief flag(b: Bool)\n  belief tag(s: String)\n");
    if told {
        ha.push_str("  belief got(n: Int)\n");
    }
    let p1 = rng.below(3) * 5;
    ha.push_str(&format!(
        "  desire D1 priority {p1} reachable by [Work, Other]\n"
    ));
    ha.push_str("  desire D2 reachable by [Other]\n");
    ha.push_str("  commit ");
    ha.push_str(rng.pick(&["blind", "single_minded", "open_minded"]));
    ha.push_str("\n  attention Busy\n  attention Calm initially\n");
    ha.push_str(&format!("  achieved D1 when {}\n", c(rng)));
    if rng.chance(50) {
        ha.push_str(&format!("  achieved D1 when {}\n", c(rng)));
    }
    ha.push_str(&format!("  achieved D2 when {}\n", c(rng)));
    if rng.chance(50) {
        ha.push_str("  impossible D1 when B(self) done(-1) because \"it \\\"fell\\\"\\n\"\n");
    }
    ha.push_str(&format!("  intend Work for D1 when {}\n", c(rng)));
    ha.push_str(&format!("  intend Other for D2 when {}\n", c(rng)));
    ha.push_str(&format!("  when {} attend Busy\n", c(rng)));
    ha.push_str(&format!("  reward Work positive when {}\n", c(rng)));
    let arg_int = rng.pick(&["3", "t", "t + 1", "-t", "2 * 3 - 6", "1 - t + t", "-2"]);
    let arg_bool = rng.pick(&["true", "go", "not go", "t < 3", "go and t > 0"]);
    let arg_str = rng.pick(&["\"x\"", "s", "\"a\\\\b\""]);
    ha.push_str(&format!(
        "  plan Work => Steps.Main({arg_int}, {arg_bool}, {arg_str})\n"
    ));
    if rng.chance(50) {
        ha.push_str("  plan Other => host.other\n");
    } else {
        ha.push_str("  plan Other => Steps.Sub(2)\n");
    }
    ha.push_str("}\n");
    if told {
        ha.push_str("\nagent C\n{\n  belief got(n: Int)\n  desire G reachable by [Idle]\n  commit blind\n  attention Here initially\n  achieved G when B(self) got(1)\n  plan Idle => Steps.Idle\n}\n");
    }
    // Plans.
    let int_expr = |rng: &mut Rng, vars: &[&str]| -> String {
        let v = |rng: &mut Rng| rng.pick(vars).to_string();
        match rng.below(7) {
            0 => format!("{} + {} - 1", v(rng), v(rng)),
            1 => format!("({} + 1) + {}", v(rng), v(rng)),
            2 => format!("{} * -2", v(rng)),
            3 => format!("-(-{})", rng.below(5)),
            4 => format!("{} / 2 % 3", v(rng)),
            5 => format!("-{}", v(rng)),
            _ => v(rng),
        }
    };
    let bool_expr = |rng: &mut Rng, vars: &[&str]| -> String {
        let v = rng.pick(vars);
        match rng.below(6) {
            0 => format!("{v} < 3 and (b or {v} = 1)"),
            1 => "(b and b) and not b".to_string(),
            2 => format!("not {v} >= 2"),
            3 => "b or b or b".to_string(),
            4 => format!("b = ({v} != 0)"),
            _ => "b".to_string(),
        }
    };
    fn process(
        rng: &mut Rng,
        depth: usize,
        vars: &mut Vec<&'static str>,
        told: bool,
        int_expr: &dyn Fn(&mut Rng, &[&str]) -> String,
        bool_expr: &dyn Fn(&mut Rng, &[&str]) -> String,
    ) -> String {
        let leaf = |rng: &mut Rng, vars: &mut Vec<&'static str>| -> String {
            match rng.below(14) {
                0 => format!("believe done({})", int_expr(rng, vars)),
                1 => format!(
                    "forget pair({}, {})",
                    int_expr(rng, vars),
                    int_expr(rng, vars)
                ),
                2 => format!("believe flag({})", bool_expr(rng, vars)),
                3 => format!(
                    "believe tag({})",
                    rng.pick(&["str", "\"a\\\"b\\\\c\\n\"", "\"\""])
                ),
                4 => format!("{} -> c", int_expr(rng, vars)),
                5 => format!("({}) -> c", int_expr(rng, vars)),
                6 => rng
                    .pick(&["SKIP", "STOP", "abort self", "stop self", "restart self"])
                    .to_string(),
                7 => rng
                    .pick(&["abort l", "stop l", "resume l", "restart l"])
                    .to_string(),
                8 if told => format!("tell C got({})", int_expr(rng, vars)),
                9 => format!("Sub({})", int_expr(rng, vars)),
                10 => "(not b) -> d".to_string(),
                _ => format!("believe pair({}, 0)", int_expr(rng, vars)),
            }
        };
        if depth == 0 {
            return leaf(rng, vars);
        }
        let sub = |rng: &mut Rng, vars: &mut Vec<&'static str>| {
            let mark = vars.len();
            let p = process(rng, depth - 1, vars, told, int_expr, bool_expr);
            vars.truncate(mark);
            p
        };
        match rng.below(10) {
            0 => {
                let a = sub(rng, vars);
                let b = sub(rng, vars);
                format!("({a} || {b})")
            }
            1 => {
                let (a, b, c) = (sub(rng, vars), sub(rng, vars), sub(rng, vars));
                format!("({a} [] {b} [] {c})")
            }
            2 => {
                let (a, b) = (sub(rng, vars), sub(rng, vars));
                format!("({a} /\\ {b})")
            }
            4 => {
                let a = sub(rng, vars);
                let b = sub(rng, vars);
                format!("match k {{ when -1 => {a} when 2 => {b} other => SKIP }}")
            }
            5 => {
                let x = ["x", "y", "z"][rng.below(3)];
                vars.push(x);
                let rest = process(rng, depth - 1, vars, told, int_expr, bool_expr);
                format!("{x} <- c ; {rest}")
            }
            6 => {
                let (a, b, c) = (sub(rng, vars), sub(rng, vars), sub(rng, vars));
                format!("({a} ; {b}) ; {c}")
            }
            7 => {
                let a = sub(rng, vars);
                format!("match b {{ when true => {a} when false => SKIP }}")
            }
            _ => {
                let (a, b) = (sub(rng, vars), sub(rng, vars));
                format!("{a} ; {b}")
            }
        }
    }
    let mut vars = vec!["k"];
    let depth = 1 + rng.below(3);
    let body = process(rng, depth, &mut vars, told, &int_expr, &bool_expr);
    let tail = rng.pick(&["", " ; Loop(k, c)", " ; Loop(k - 1, c)"]);
    let labelled = process(rng, 1, &mut vec!["k"], told, &int_expr, &bool_expr);
    let body = match rng.below(3) {
        0 => format!("(l : {labelled}) || {body}"),
        1 => format!("{body} ; (l : {labelled})"),
        _ => format!("(l : {labelled} ; {body}) /\\ SKIP"),
    };
    let mut hk = format!(
        "plan Main(k: Int, b: Bool, str: String) : A\n{{\n  c : chan Int\n  d : chan Bool\n  body := {body}{tail}\n"
    );
    if rng.chance(40) {
        let h = process(rng, 1, &mut vec!["k"], told, &int_expr, &bool_expr);
        hk.push_str(&format!("  on abort := {h}\n"));
    }
    if rng.chance(30) {
        hk.push_str("  on stop := believe done(0)\n  on resume := forget done(0)\n");
    }
    hk.push_str("}\n\n");
    hk.push_str("plan Sub(k: Int) : A := match k { when 0 => SKIP when -3 => STOP other => believe done(k) }\n\n");
    hk.push_str("plan Loop(k: Int, c: chan Int) : A := match k { when 0 => SKIP other => x <- c ; believe done(x + k) ; Loop(k - 1, c) }\n");
    if told {
        hk.push_str("\nplan Idle() : C := SKIP\n");
    }
    let mut files = vec![("A.ha".to_string(), ha), ("Steps.hk".to_string(), hk)];
    if rng.chance(50) {
        let hb = format!(
            "values A {{\n  value base := 2.5\n  option Work := base - 0.5 * done.n + learned(Work) * {}\n  option Other := -(1.0 + pair.b) / 3 % 2\n  policy {}\n}}\n",
            rng.pick(&["t", "1", "0.25", "(t - 1)"]),
            rng.pick(&[
                "greedy",
                "softmax(temperature = 0.5)",
                "epsilon_greedy(epsilon = 0.1)",
                "ucb(c = 2)"
            ])
        );
        files.push(("A.hb".to_string(), hb));
    }
    (files, params)
}

#[test]
fn random_projects_round_trip() {
    use hilbert_frontend::project;
    let seed = std::env::var("HILBERT_LISTING_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed);
    let (mut lowered, mut networks, mut failures) = (0, 0, Vec::new());
    let mut refused: std::collections::BTreeMap<String, usize> = Default::default();
    // HILBERT_LISTING_PROJECTS=N runs more (a longer search).
    let total: usize = std::env::var("HILBERT_LISTING_PROJECTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    for i in 0..total {
        let (files, params) = project(&mut rng);
        let mut loaded = project::Loaded::default();
        for (name, text) in &files {
            project::add_bytes(&mut loaded, name.clone(), text.clone().into_bytes());
        }
        let mut args = hilbert_frontend::AgentArgs::new();
        for (n, v) in &params {
            args.entry("A".into())
                .or_default()
                .insert(n.clone(), v.clone());
        }
        let ir = match hilbert_frontend::lower_project(&loaded, &args) {
            Ok((ir, _)) => ir,
            Err(errors) => {
                for e in errors {
                    *refused
                        .entry(format!("{} {}", e.code, e.message))
                        .or_default() += 1;
                }
                continue;
            }
        };
        lowered += 1;
        networks += ir.networks.len();
        for f in round_trip_all(&format!("random project {i}"), &ir) {
            let sources: String = files.iter().map(|(n, t)| format!("--- {n}\n{t}")).collect();
            failures.push(format!("{f}\nfrom the sources:\n{sources}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures[0]
    );
    eprintln!("{lowered} of {total} random projects lower, {networks} networks, each round-trips");
    // The generator's projects are meant to be valid: most must lower.
    assert!(
        lowered * 10 >= total * 8,
        "only {lowered} of {total} projects lower; refusals: {refused:#?}"
    );
    assert!(networks >= lowered, "{networks} networks");
}

/// A project of one agent `A` with these members and parameters, and these plans in `P.hk`.
fn one_agent(params: &str, members: &str, plans: &str, hb: &str) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "A.ha".to_string(),
            format!(
                "agent A({params})\n{{\n  belief done(n: Int)\n  belief flag(b: Bool)\n  desire D reachable by [Work]\n  commit single_minded\n  attention Calm initially\n  achieved D when B(self) done(1)\n{members}\n}}\n"
            ),
        ),
        ("P.hk".to_string(), plans.to_string()),
    ];
    if !hb.is_empty() {
        files.push(("A.hb".to_string(), hb.to_string()));
    }
    files
}

/// What the lowering does that the listing must undo, each in a project of its own: every
/// network round-trips.
#[test]
fn the_lowerings_corner_cases_round_trip() {
    use hilbert_certificates::ir::Literal;
    use hilbert_frontend::project;
    let run = "plan Run(k: Int, b: Bool, s: String) : A := match k { when 0 => believe done(1) other => STOP }\n";
    type Case<'a> = (&'a str, Files, Vec<(&'a str, Literal)>);
    let cases: Vec<Case> = vec![
        (
            "a root argument no literal is",
            one_agent(
                "",
                "  plan Work => P.Run(-9223372036854775807 - 1, true, \"\")",
                run,
                "",
            ),
            vec![],
        ),
        (
            "unset parameters read by Bool and String arguments",
            one_agent(
                "t: Int, go: Bool, s: String",
                "  plan Work => P.Run(t + 1, go and t > 0, s)",
                run,
                "",
            ),
            vec![],
        ),
        (
            "an unset String parameter read only by a Bool argument",
            one_agent(
                "t: Int, s: String",
                "  plan Work => P.Run(3, s = \"x\", \"y\")",
                run,
                "",
            ),
            vec![("t", Literal::Int(2))],
        ),
        (
            "conditions compared, their conjunctions kept apart",
            one_agent(
                "",
                "  intend Work for D when (B(self) done(1) and B(self) done(2)) = (B(self) done(3) and not B(self) done(4)) or B(self) done(5)\n  when (B(self) done(n) and B(self) done(n + 1)) != true attend Calm\n  plan Work => P.Run",
                "plan Run() : A := SKIP\n",
                "",
            ),
            vec![],
        ),
        (
            "a parameter's literal value, negated, and i64::MIN",
            one_agent(
                "t: Int, u: Int, v0: Int",
                "  intend Work for D when B(self) done(n) and n = -t and -u < n and B(self) done(v0)\n  plan Work => P.Run(0, true, \"\")",
                run,
                "values A {\n  option Work := t * 2.0 - u\n}\n",
            ),
            vec![
                ("t", Literal::Int(3)),
                ("u", Literal::Int(i64::MIN)),
                ("v0", Literal::Int(-4)),
            ],
        ),
        (
            "B(A) inside agent A, computed Bool pattern arguments",
            one_agent(
                "go: Bool",
                "  intend Work for D when B(A) done(1) and B(self) flag(not go) and B(self) flag(1 < 2)\n  plan Work => P.Run(0, go, \"\")",
                run,
                "",
            ),
            vec![],
        ),
        (
            "strings as they are: a tab, accents, a combining mark, quotes, backslashes",
            vec![
                (
                    "A.ha".to_string(),
                    "agent A(s: String)\n{\n  belief tag(s: String)\n  desire D reachable by [Work]\n  commit blind\n  attention Calm initially\n  achieved D when B(self) tag(\"a\tb é e\u{301} ☃ \\\"q\\\" \\\\\") or B(self) tag(s)\n  impossible D when B(self) tag(\"\t\") because \"it is\tso\"\n  plan Work => P.Say(s)\n}\n".to_string(),
                ),
                (
                    "P.hk".to_string(),
                    "plan Say(s: String) : A := believe tag(\"\tx\\ny\") ; believe tag(s)\n".to_string(),
                ),
            ],
            vec![("s", Literal::Str("x\ty \"z\" \\ é".into()))],
        ),
        (
            "deep nesting and long chains",
            one_agent(
                "",
                &format!(
                    "  intend Work for D when {}B(self) done(1){}\n  achieved D when B(self) done({})\n  plan Work => P.Deep(1)",
                    "not (".repeat(60),
                    ")".repeat(60),
                    vec!["1"; 500].join(" + ")
                ),
                &format!(
                    "plan Deep(k: Int) : A\n{{\n  c : chan Int\n  body := {}believe done({}){}\n}}\n",
                    (0..40)
                        .map(|i| format!("l{i} : (SKIP || "))
                        .collect::<String>(),
                    vec!["k"; 300].join(" * "),
                    ")".repeat(40)
                ),
                "",
            ),
            vec![],
        ),
    ];
    let mut failures = Vec::new();
    // A string holding a control character the language has no escape for is written escaped
    // (no listing carries one raw), so it alone does not round-trip, and says why.
    let escape = "\u{1b}[2J";
    let mut loaded = project::Loaded::default();
    for (name, text) in one_agent(
        "",
        "  plan Work => P.Say\n  intend Work for D when B(self) done(1)",
        &format!(
            "plan Say() : A := believe done(1) ; match \"{escape}\" {{ when \"x\" => SKIP other => SKIP }}\n"
        ),
        "",
    ) {
        project::add_bytes(&mut loaded, name, text.into_bytes());
    }
    let (ir, _) = hilbert_frontend::lower_project(&loaded, &Default::default()).unwrap();
    let why = roundtrip::round_trip("escape", &body(&ir, 0)).unwrap_err();
    assert!(why.contains("unknown escape"), "{why}");
    assert!(!listing::listing("escape", &body(&ir, 0)).contains(escape));
    for (what, files, params) in cases {
        let mut loaded = project::Loaded::default();
        for (name, text) in &files {
            project::add_bytes(&mut loaded, name.clone(), text.clone().into_bytes());
        }
        let mut args = hilbert_frontend::AgentArgs::new();
        for (n, v) in params {
            args.entry("A".into()).or_default().insert(n.to_string(), v);
        }
        match hilbert_frontend::lower_project(&loaded, &args) {
            Ok((ir, _)) => {
                assert!(!ir.networks.is_empty(), "{what}: no network");
                failures.extend(round_trip_all(what, &ir));
            }
            Err(e) => failures.push(format!("{what}: does not lower: {e:?}\n{files:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `HILBERT_LISTING_DIR=DIR`: every project under DIR (a folder of `.ha`/`.hk`/`.hb` files, and
/// an optional `params.txt` of `AGENT.NAME=VALUE` lines) that lowers round-trips — a way to run
/// the round trip over another generator's projects (the `oracle` crate's, say). Without the
/// variable, nothing runs.
#[test]
fn every_project_of_a_given_directory_round_trips() {
    let Ok(root) = std::env::var("HILBERT_LISTING_DIR") else {
        return;
    };
    let (mut projects, mut lowered, mut networks, mut failures) = (0, 0, 0, Vec::new());
    for dir in dirs(Path::new(&root)) {
        projects += 1;
        let params = std::fs::read_to_string(dir.join("params.txt")).unwrap_or_default();
        let specs: Vec<_> = params
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| hilbert_frontend::ParamSpec::parse(l).ok())
            .collect();
        let Ok(loaded) = hilbert_frontend::project::load(&[dir.display().to_string()]) else {
            continue;
        };
        let Ok((_, Ok((ir, _)))) = hilbert_frontend::lower_project_params(&loaded, &specs) else {
            continue;
        };
        lowered += 1;
        networks += ir.networks.len();
        failures.extend(round_trip_all(&dir.display().to_string(), &ir));
    }
    eprintln!("{lowered} of {projects} projects under {root} lower, {networks} networks");
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// `verify --dump` on certificates whose IR is not what any source lowers to: the listing is
/// written all the same, its header says the round trip FAILED and why, and nothing panics. An
/// IR that is source of other sources (a goal made `true`) round-trips: the listing shows it as
/// it is, for the auditor to compare with the sources.
#[test]
fn a_hostile_certificates_listing_says_its_round_trip_failed() {
    use hilbert_certificates::ir::{Cond, Node, NodeId};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = TempDir::with_files(&[]);
    let into = out.join("out");
    let built = hilbert(
        &[
            "build",
            root.join("examples/production-line").to_str().unwrap(),
            "--out",
            &into,
        ],
        None,
    );
    assert_eq!(built.code, Some(0), "{}", built.stderr);
    let bytes = std::fs::read(format!("{into}/Operator.Work.cert")).unwrap();
    let honest = cert::decode(&bytes).unwrap();
    type Forge = fn(&mut Body);
    let forgeries: [(&str, Forge, &str); 4] = [
        (
            "a node that points nowhere",
            |b| b.ir.networks[0].nodes[7] = Node::Seq(NodeId(0), NodeId(999)),
            "FAILED: the listed source does not check or lower",
        ),
        (
            "a name with control characters",
            |b| b.ir.agents[0].beliefs[0].name = "ma\u{1b}[2Jde".into(),
            "FAILED: the listed source does not check or lower",
        ),
        (
            "a slot past the plan's slots",
            |b| b.ir.networks[0].plans[0].slots = 0,
            "FAILED: ",
        ),
        (
            "a goal made true",
            |b| b.ir.agents[0].desires[0].achieved = vec![Cond::True],
            "checked: ",
        ),
    ];
    for (what, forge, want) in forgeries {
        let mut body = honest.clone();
        forge(&mut body);
        body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
        let path = out.join("forged.cert");
        std::fs::write(&path, cert::encode(&body)).unwrap();
        let run = hilbert(&["verify", &path, "--dump"], None);
        assert!(matches!(run.code, Some(0 | 1)), "{what}: {}", run.stderr);
        assert!(
            run.stdout.contains(&format!("--   round trip  {want}")),
            "{what}:\n{}",
            run.stdout
        );
        assert!(!run.stdout.contains('\u{1b}'), "{what}");
    }
}
