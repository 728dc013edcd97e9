//! A differential campaign: generate projects from consecutive seeds, run the build and the
//! oracle on each, group the disagreements by class, and shrink the first project of each class
//! to a minimal one.

use crate::decide::Kind;
use crate::generate::{self, Coverage, Project};
use crate::pipeline::{self, Outcome, Sources};
use crate::shrink;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The oracle's default state bound per scene in a campaign (the build's is four times it).
pub const MAX_STATES: usize = 5_000;

/// A class of disagreement and its first, shrunk, example.
#[derive(Clone, Debug)]
pub struct Found {
    /// The class.
    pub class: String,
    /// How many projects showed it.
    pub count: usize,
    /// The seed of the first.
    pub seed: u64,
    /// Its detail.
    pub detail: String,
    /// The minimal project (the first one, unshrunk, when shrinking was off or failed).
    pub minimal: Sources,
    /// The minimal project's disagreements.
    pub minimal_details: Vec<String>,
}

/// What a campaign did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Projects generated.
    pub generated: usize,
    /// Projects the checker or the lowering refused, by error code.
    pub refused: BTreeMap<String, usize>,
    /// Projects compared.
    pub compared: usize,
    /// Theorems compared.
    pub theorems: usize,
    /// Theorems the oracle left undecided (too big).
    pub undecided: usize,
    /// Of the theorems compared, those of scenes where a step diverges (`pipeline::Outcome`).
    pub diverging: usize,
    /// Disagreement classes.
    pub found: BTreeMap<String, Found>,
    /// Coverage of the grammar.
    pub coverage: Coverage,
    /// Wall time.
    pub seconds: f64,
}

/// How long and from where.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Constructs left out ([`generate::AVOIDABLE`]).
    pub avoid: Vec<String>,
    /// The first seed.
    pub seed: u64,
    /// At most this many projects.
    pub count: usize,
    /// At most this long.
    pub time: Duration,
    /// How many cuts the shrinker may try for the first project of each class (0: none).
    pub shrink: usize,
    /// The oracle's state bound per scene.
    pub max_states: usize,
}

/// Runs a campaign.
pub fn run(plan: Plan, mut progress: impl FnMut(&Report)) -> Report {
    let begun = Instant::now();
    let mut r = Report::default();
    let mut seed = plan.seed;
    while r.generated < plan.count && begun.elapsed() < plan.time {
        let p = generate::project(seed, &mut r.coverage, &plan.avoid);
        r.generated += 1;
        if std::env::var_os("ORACLE_TRACE").is_some() {
            eprintln!("seed {seed}");
        }
        match pipeline::run(&p.sources(), plan.max_states) {
            Outcome::Refused(codes) => {
                let mut codes = codes;
                codes.sort();
                codes.dedup();
                *r.refused.entry(codes.join(",")).or_default() += 1;
            }
            Outcome::Compared {
                disagreements,
                compared,
                undecided,
                diverging,
                kinds,
            } => {
                for k in kinds {
                    *r.coverage.entry(k.label()).or_default() += 1;
                }
                r.compared += 1;
                r.theorems += compared;
                r.undecided += undecided;
                r.diverging += diverging;
                for d in disagreements {
                    if let Some(f) = r.found.get_mut(&d.class) {
                        f.count += 1;
                        continue;
                    }
                    // Shrinking stops a minute after the campaign's time, so that a campaign
                    // with many classes still ends (what it reached is printed).
                    let left =
                        (plan.time + Duration::from_secs(60)).saturating_sub(begun.elapsed());
                    let minimal = if plan.shrink > 0 && !left.is_zero() {
                        shrink_within(
                            &p,
                            &d.class,
                            plan.max_states,
                            plan.shrink,
                            Instant::now() + left,
                        )
                    } else {
                        p.clone()
                    };
                    let minimal_details = details(&minimal.sources(), &d.class, plan.max_states);
                    r.found.insert(
                        d.class.clone(),
                        Found {
                            class: d.class.clone(),
                            count: 1,
                            seed,
                            detail: d.detail.clone(),
                            minimal: minimal.sources(),
                            minimal_details,
                        },
                    );
                }
            }
        }
        seed += 1;
        if r.generated.is_multiple_of(200) {
            r.seconds = begun.elapsed().as_secs_f64();
            progress(&r);
        }
    }
    r.seconds = begun.elapsed().as_secs_f64();
    r
}

/// Runs `threads` campaigns side by side, each on every `threads`-th seed's share (seeds
/// `seed + i * count / threads …`), and merges their reports.
pub fn run_parallel(plan: Plan, threads: usize) -> Report {
    let threads = threads.max(1);
    let share = plan.count.div_ceil(threads);
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let mut mine = plan.clone();
                mine.seed = plan.seed + (i * share) as u64;
                mine.count = share.min(plan.count - (i * share).min(plan.count));
                std::thread::Builder::new()
                    .stack_size(256 << 20)
                    .spawn_scoped(scope, move || run(mine, |_| {}))
                    .expect("a thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a campaign thread"))
            .collect()
    });
    let mut all = Report::default();
    for r in reports {
        merge(&mut all, r);
    }
    all
}

/// Adds report `r` (of other seeds) to `all`: counts add up, the wall times overlap (the
/// longer stands), and of a class found in both the earlier seed's example stands.
pub fn merge(all: &mut Report, r: Report) {
    all.generated += r.generated;
    all.compared += r.compared;
    all.theorems += r.theorems;
    all.undecided += r.undecided;
    all.diverging += r.diverging;
    all.seconds = all.seconds.max(r.seconds);
    for (k, v) in r.refused {
        *all.refused.entry(k).or_default() += v;
    }
    for (k, v) in r.coverage {
        *all.coverage.entry(k).or_default() += v;
    }
    for (k, f) in r.found {
        match all.found.get_mut(&k) {
            Some(g) => {
                g.count += f.count;
                if f.seed < g.seed {
                    let count = g.count;
                    *g = f;
                    g.count = count;
                }
            }
            None => {
                all.found.insert(k, f);
            }
        }
    }
}

/// Escapes a field of [`encode`]'s lines.
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

/// Undoes [`esc`].
fn unesc(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// Encodes a found class as one line of tab-separated, escaped fields: class, count, seed,
/// detail, parameters, the minimal project's details, then each file's path and text.
pub fn encode_found(f: &Found) -> String {
    let mut fields = vec![
        esc(&f.class),
        f.count.to_string(),
        f.seed.to_string(),
        esc(&f.detail),
        esc(&f.minimal.params.join("\n")),
        esc(&f.minimal_details.join("\n")),
    ];
    for (path, text) in &f.minimal.files {
        fields.push(esc(path));
        fields.push(esc(text));
    }
    fields.join("\t")
}

/// Decodes a line of [`encode_found`].
pub fn decode_found(line: &str) -> Option<Found> {
    let fields: Vec<String> = line.split('\t').map(unesc).collect();
    if fields.len() < 6 || !fields.len().is_multiple_of(2) {
        return None;
    }
    let lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    Some(Found {
        class: fields[0].clone(),
        count: fields[1].parse().ok()?,
        seed: fields[2].parse().ok()?,
        detail: fields[3].clone(),
        minimal: Sources {
            params: lines(&fields[4]),
            files: fields[6..]
                .chunks(2)
                .map(|c| (c[0].clone(), c[1].clone()))
                .collect(),
        },
        minimal_details: lines(&fields[5]),
    })
}

/// A report as lines a parent process reads back with [`decode`] (a campaign run in a child
/// process under a memory bound, `crate::guard`).
pub fn encode(r: &Report) -> String {
    let mut s = format!(
        "counts\t{}\t{}\t{}\t{}\t{}\t{}\n",
        r.generated, r.compared, r.theorems, r.undecided, r.diverging, r.seconds
    );
    for (codes, n) in &r.refused {
        s.push_str(&format!("refused\t{}\t{n}\n", esc(codes)));
    }
    for (c, n) in &r.coverage {
        s.push_str(&format!("coverage\t{}\t{n}\n", esc(c)));
    }
    for f in r.found.values() {
        s.push_str(&format!("found\t{}\n", encode_found(f)));
    }
    s.push_str("end\n");
    s
}

/// Reads back a report [`encode`] wrote; `None` when it is not whole (no `end` line) or a
/// line does not parse.
pub fn decode(text: &str) -> Option<Report> {
    let mut r = Report::default();
    let mut ended = false;
    for line in text.lines() {
        let (kind, rest) = line.split_once('\t').unwrap_or((line, ""));
        match kind {
            "counts" => {
                let v: Vec<&str> = rest.split('\t').collect();
                if v.len() != 6 {
                    return None;
                }
                r.generated = v[0].parse().ok()?;
                r.compared = v[1].parse().ok()?;
                r.theorems = v[2].parse().ok()?;
                r.undecided = v[3].parse().ok()?;
                r.diverging = v[4].parse().ok()?;
                r.seconds = v[5].parse().ok()?;
            }
            "refused" => {
                let (codes, n) = rest.rsplit_once('\t')?;
                r.refused.insert(unesc(codes), n.parse().ok()?);
            }
            "coverage" => {
                let (c, n) = rest.rsplit_once('\t')?;
                let c = unesc(c);
                let kinds = Kind::ALL.map(Kind::label);
                let key = generate::CONSTRUCTS
                    .iter()
                    .chain(&kinds)
                    .find(|k| **k == c)
                    .copied()?;
                r.coverage.insert(key, n.parse().ok()?);
            }
            "found" => {
                let f = decode_found(rest)?;
                r.found.insert(f.class.clone(), f);
            }
            "end" => ended = true,
            _ => {}
        }
    }
    ended.then_some(r)
}

/// The details of the disagreements of class `class` of a project.
pub fn details(src: &Sources, class: &str, max_states: usize) -> Vec<String> {
    match pipeline::run(src, max_states) {
        Outcome::Compared { disagreements, .. } => disagreements
            .into_iter()
            .filter(|d| d.class == class)
            .map(|d| d.detail)
            .collect(),
        Outcome::Refused(_) => Vec::new(),
    }
}

/// As [`shrink_to`], trying no cut after `deadline`.
pub fn shrink_within(
    p: &Project,
    class: &str,
    max_states: usize,
    budget: usize,
    deadline: Instant,
) -> Project {
    let trace = std::env::var_os("ORACLE_TRACE").is_some();
    let mut tries = 0u64;
    let mut keep = |q: &Project| {
        tries += 1;
        if trace {
            eprintln!("try {tries}");
        }
        Instant::now() < deadline && !details(&q.sources(), class, max_states).is_empty()
    };
    shrink::shrink(p, &mut keep, budget)
}

/// Shrinks `p` to a minimal project that still shows a disagreement of class `class`.
pub fn shrink_to(p: &Project, class: &str, max_states: usize, budget: usize) -> Project {
    let mut keep = |q: &Project| !details(&q.sources(), class, max_states).is_empty();
    shrink::shrink(p, &mut keep, budget)
}

/// The report as text: counts, rate, refusals, coverage (and its gaps), and every class with
/// its minimal project.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{} projects generated in {:.1} s ({:.1}/s); {} compared ({} theorems, {} of them in scenes where a step diverges; {} left undecided by a bound); {} refused by the checker\n",
        r.generated,
        r.seconds,
        r.generated as f64 / r.seconds.max(1e-9),
        r.compared,
        r.theorems,
        r.diverging,
        r.undecided,
        r.refused.values().sum::<usize>()
    ));
    for (codes, n) in &r.refused {
        s.push_str(&format!("  refused {n}: {codes}\n"));
    }
    s.push_str("coverage:\n");
    for c in generate::CONSTRUCTS {
        let n = r.coverage.get(c).copied().unwrap_or(0);
        s.push_str(&format!(
            "  {n:>8}  {c}{}\n",
            if n == 0 { "   <- GAP" } else { "" }
        ));
    }
    s.push_str("theorems compared, by kind:\n");
    for k in Kind::ALL {
        let n = r.coverage.get(k.label()).copied().unwrap_or(0);
        s.push_str(&format!("  {n:>8}  {}\n", k.label()));
    }
    s.push_str(&format!("{} disagreement classes\n", r.found.len()));
    for f in r.found.values() {
        s.push_str(&format!(
            "\n=== {} ({} projects; first seed {})\n  {}\nminimal project:\n{}",
            f.class,
            f.count,
            f.seed,
            f.detail,
            f.minimal.listing()
        ));
        for d in &f.minimal_details {
            s.push_str(&format!("  -> {d}\n"));
        }
    }
    s
}

/// Writes a project as a regression case: its files, `params`, and `class` (what it showed).
pub fn write_case(dir: &std::path::Path, src: &Sources, class: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (path, text) in &src.files {
        std::fs::write(dir.join(path), text)?;
    }
    std::fs::write(dir.join("params"), src.params.join("\n"))?;
    std::fs::write(dir.join("class"), format!("{class}\n"))?;
    Ok(())
}

/// Reads a regression case written by [`write_case`].
pub fn read_case(dir: &std::path::Path) -> std::io::Result<Sources> {
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if name.ends_with(".ha") || name.ends_with(".hk") || name.ends_with(".hb") {
            files.push((name, std::fs::read_to_string(&p)?));
        }
    }
    let params = std::fs::read_to_string(dir.join("params"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    Ok(Sources { files, params })
}
