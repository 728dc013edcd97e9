//! The models of the suite: one directory per model under `benchmarks/models/`, each with a
//! `bench.toml` that names its generator (or a fixed project), its sizes per suite, its Spin
//! peer and the verdict every theorem must have.
//!
//! ```toml
//! description = "a token ring of N nodes, each serving its user while it holds the token"
//! generator = "token-ring"          # or: project = "../../../examples/production-line"
//! k = 4                             # pipeline only: what every stage counts to
//! peer = "token-ring.pml"           # in benchmarks/peers/spin/
//! peer_defines = []                 # extra `-D` for Spin (e.g. "ASYMMETRIC")
//! # peer_theorem = "…_no_deadlock"  # what Spin decides, when there are several networks
//! # kind = "scaling"                # a scaling row: the whole `hilbert build`, timed (below)
//!
//! [suites]                          # N for each suite
//! smoke = [3]
//! default = [4, 8, 12]
//! large = [14, 16]
//!
//! [expected]                        # every theorem the build reports, with its verdict
//! Token_no_deadlock = "proved"
//! Circulate_live_Served = "refuted"
//! ```
//!
//! A model of `kind = "scaling"` (`seq`, `par`, `files`: [`crate::scaling`]) is measured
//! differently: its row is the whole `hilbert build` of the generated project, in a process of
//! its own, against the input's size; its `[expected]` verdicts hold in every network (a
//! project of several agents repeats the theorems' names), and it has no peer.

use hilbert_frontend::project::{self, Loaded};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The generated model families, by the name a `bench.toml` gives as `generator`.
pub const GENERATORS: &[&str] = &[
    "philosophers-symmetric",
    "philosophers-asymmetric",
    "philosophers-plain",
    "token-ring",
    "cyclic-scheduler",
    "pipeline",
    "seq",
    "par",
    "files",
];

/// The project of a generated model of size `n` (`k`: what a pipeline counts to; the others
/// ignore it), as `(file name, text)` pairs.
pub fn generate(generator: &str, n: usize, k: usize) -> Result<Vec<(String, String)>, String> {
    let min = if matches!(generator, "pipeline" | "seq" | "par" | "files") {
        1
    } else {
        2
    };
    if n < min || k == 0 {
        return Err(format!(
            "`{generator}` needs N ≥ {min} (and K ≥ 1), not N = {n}"
        ));
    }
    Ok(match generator {
        "philosophers-symmetric" => crate::philosophers(n, true),
        "philosophers-asymmetric" => crate::philosophers(n, false),
        "philosophers-plain" => crate::plain_table(n),
        "token-ring" => crate::token_ring(n),
        "cyclic-scheduler" => crate::scheduler(n),
        "pipeline" => crate::pipeline(n, k),
        "seq" => crate::scaling::seq(n),
        "par" => crate::scaling::par(n),
        "files" => crate::scaling::files(n),
        other => {
            return Err(format!(
                "no generator `{other}` (there are: {})",
                GENERATORS.join(", ")
            ));
        }
    })
}

/// A `bench.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// One line: what the model is.
    pub description: String,
    /// The generator ([`GENERATORS`]), for a model parameterised by N.
    pub generator: Option<String>,
    /// A fixed project, relative to the model's directory (its N is 1).
    pub project: Option<String>,
    /// What every stage of a pipeline counts to.
    pub k: Option<usize>,
    /// The Promela peer, a file of `benchmarks/peers/spin/`.
    pub peer: Option<String>,
    /// Extra preprocessor definitions for the peer.
    #[serde(default)]
    pub peer_defines: Vec<String>,
    /// The theorem Spin's deadlock search decides (default: the one `*_no_deadlock` theorem).
    pub peer_theorem: Option<String>,
    /// `scaling` for a scaling row (the whole `hilbert build`, timed against the input's size);
    /// none for a state-space row.
    pub kind: Option<String>,
    /// N for each suite.
    pub suites: BTreeMap<String, Vec<usize>>,
    /// Every theorem the build reports, with its expected verdict (`proved`, `refuted`).
    pub expected: BTreeMap<String, String>,
}

/// A model of the suite.
#[derive(Clone, Debug)]
pub struct Model {
    /// Its directory's name (`token-ring`).
    pub name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Its `bench.toml`.
    pub spec: Spec,
}

/// The suites every model may list; a model without a suite has no row in it.
pub const SUITES: &[&str] = &["smoke", "default", "large"];

impl Model {
    /// Reads `dir/bench.toml`.
    pub fn load(dir: &Path) -> Result<Model, String> {
        let path = dir.join("bench.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let spec: Spec = toml::from_str(&text).map_err(|e| format!("`{}`: {e}", path.display()))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match (&spec.generator, &spec.project) {
            (Some(g), None) if GENERATORS.contains(&g.as_str()) => {}
            (Some(g), None) => {
                return Err(format!("`{}`: no generator `{g}`", path.display()));
            }
            (None, Some(_)) => {}
            _ => {
                return Err(format!(
                    "`{}`: give exactly one of `generator` and `project`",
                    path.display()
                ));
            }
        }
        match spec.kind.as_deref() {
            None => {}
            Some("scaling") if spec.generator.is_some() && spec.peer.is_none() => {}
            Some("scaling") => {
                return Err(format!(
                    "`{}`: a scaling model has a `generator` and no `peer`",
                    path.display()
                ));
            }
            Some(other) => {
                return Err(format!(
                    "`{}`: kind = \"{other}\": the only kind is `scaling`",
                    path.display()
                ));
            }
        }
        for suite in spec.suites.keys() {
            if !SUITES.contains(&suite.as_str()) {
                return Err(format!(
                    "`{}`: unknown suite `{suite}` (suites: {})",
                    path.display(),
                    SUITES.join(", ")
                ));
            }
        }
        for (theorem, verdict) in &spec.expected {
            if verdict != "proved" && verdict != "refuted" {
                return Err(format!(
                    "`{}`: {theorem} = \"{verdict}\": expected `proved` or `refuted`",
                    path.display()
                ));
            }
        }
        Ok(Model {
            name,
            dir: dir.to_path_buf(),
            spec,
        })
    }

    /// The N of a suite (none if the model has no row in it).
    pub fn sizes(&self, suite: &str) -> &[usize] {
        self.spec.suites.get(suite).map_or(&[], Vec::as_slice)
    }

    /// Whether the model is a scaling row (`kind = "scaling"`).
    pub fn is_scaling(&self) -> bool {
        self.spec.kind.as_deref() == Some("scaling")
    }

    /// The theorem the peer's deadlock search decides: `peer_theorem`, or the one expected
    /// theorem whose name ends in `_no_deadlock`.
    pub fn peer_theorem(&self) -> Option<String> {
        if let Some(t) = &self.spec.peer_theorem {
            return Some(t.clone());
        }
        let mut found = self
            .spec
            .expected
            .keys()
            .filter(|k| k.ends_with("_no_deadlock"));
        match (found.next(), found.next()) {
            (Some(t), None) => Some(t.clone()),
            _ => None,
        }
    }

    /// What a pipeline counts to (3, the seed's, by default).
    pub fn k(&self) -> usize {
        self.spec.k.unwrap_or(3)
    }

    /// The project of size `n`, loaded (generated in memory, or read from disk).
    pub fn project(&self, n: usize) -> Result<Loaded, String> {
        if let Some(p) = &self.spec.project {
            let path = self.dir.join(p);
            return project::load(&[path.to_string_lossy().into_owned()])
                .map_err(|e| format!("{}: {e}", self.name));
        }
        let generator = self.spec.generator.as_deref().unwrap_or_default();
        let mut loaded = Loaded::default();
        for (name, text) in generate(generator, n, self.k())? {
            if [".ha", ".hk", ".hb"].iter().any(|e| name.ends_with(e)) {
                project::add_bytes(&mut loaded, name, text.into_bytes());
            }
        }
        Ok(loaded)
    }
}

/// Every model under `root` (each directory with a `bench.toml`), by name.
pub fn models(root: &Path) -> Result<Vec<Model>, String> {
    let entries = std::fs::read_dir(root)
        .map_err(|e| format!("cannot read the models in `{}`: {e}", root.display()))?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("bench.toml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| Model::load(d)).collect()
}

/// The suite's own models (`benchmarks/models` of this source tree).
pub fn default_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

/// The Promela peers (`benchmarks/peers/spin` of this source tree).
pub fn peers_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/spin")
}

#[cfg(test)]
mod tests {
    use super::*;
    use hilbert_frontend::check_project;

    /// Every model of the suite loads, lists its theorems, has the three suites' sizes in order
    /// (`large` beyond `default`), and has a peer that exists.
    #[test]
    fn every_model_of_the_suite_loads_and_names_an_existing_peer() {
        let models = models(&default_root()).unwrap();
        let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cyclic-scheduler",
                "files",
                "par",
                "philosophers-asymmetric",
                "philosophers-plain",
                "philosophers-symmetric",
                "pipeline",
                "production-line",
                "seq",
                "token-ring"
            ]
        );
        for m in &models {
            assert!(!m.sizes("smoke").is_empty(), "{}", m.name);
            assert!(!m.sizes("default").is_empty(), "{}", m.name);
            assert!(!m.spec.expected.is_empty(), "{}", m.name);
            let largest = m.sizes("default").iter().max().unwrap();
            assert!(m.sizes("large").iter().all(|n| n > largest), "{}", m.name);
            if m.is_scaling() {
                assert!(m.spec.peer.is_none(), "{}", m.name);
                continue;
            }
            let peer = peers_root().join(m.spec.peer.as_deref().unwrap());
            assert!(peer.is_file(), "{}", peer.display());
            assert!(m.peer_theorem().is_some(), "{}", m.name);
        }
    }

    /// Every generator's projects from the smallest size to a few more check with no
    /// diagnostic and lower to one network (a scaling shape: one per agent).
    #[test]
    fn every_generated_model_checks_clean() {
        for g in GENERATORS {
            for n in 2..=5 {
                let mut loaded = Loaded::default();
                for (name, text) in generate(g, n, 3).unwrap() {
                    if name.ends_with(".ha") || name.ends_with(".hk") {
                        project::add_bytes(&mut loaded, name, text.into_bytes());
                    }
                }
                let checked = check_project(&loaded);
                let found: Vec<String> = checked
                    .diagnostics
                    .iter()
                    .map(|d| format!("{} {}", d.code, d.message))
                    .collect();
                assert!(found.is_empty(), "{g} n = {n}: {found:?}");
                let want = crate::scaling::networks(g, n);
                assert_eq!(checked.ir.unwrap().networks.len(), want, "{g} n = {n}");
            }
        }
        for g in ["seq", "par", "files"] {
            assert!(generate(g, 1, 3).is_ok(), "{g}");
            assert!(generate(g, 0, 3).is_err(), "{g}");
        }
        assert!(
            generate("pipeline", 1, 3).is_ok(),
            "one stage is the seed's Produce"
        );
        assert!(generate("token-ring", 1, 3).is_err());
        assert!(generate("nothing", 3, 3).is_err());
    }

    #[test]
    fn a_bench_toml_with_an_unknown_verdict_or_suite_is_refused() {
        let dir = std::env::temp_dir().join(format!("hilbert-suite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |text: &str| std::fs::write(dir.join("bench.toml"), text).unwrap();
        write(
            "description = \"x\"\ngenerator = \"token-ring\"\n[suites]\nhuge = [3]\n[expected]\n",
        );
        assert!(
            Model::load(&dir)
                .unwrap_err()
                .contains("unknown suite `huge`")
        );
        write(
            "description = \"x\"\ngenerator = \"token-ring\"\n[suites]\n[expected]\nA = \"maybe\"\n",
        );
        assert!(
            Model::load(&dir)
                .unwrap_err()
                .contains("`proved` or `refuted`")
        );
        write("description = \"x\"\ngenerator = \"seq\"\nkind = \"huge\"\n[suites]\n[expected]\n");
        assert!(Model::load(&dir).unwrap_err().contains("the only kind"));
        write(
            "description = \"x\"\ngenerator = \"seq\"\nkind = \"scaling\"\npeer = \"x.pml\"\n[suites]\n[expected]\n",
        );
        assert!(Model::load(&dir).unwrap_err().contains("no `peer`"));
        write("description = \"x\"\n[suites]\n[expected]\n");
        assert!(Model::load(&dir).unwrap_err().contains("exactly one of"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
