//! The round trip of a listing: the source a certificate's listing writes is lowered again, by
//! the same lowering as `hilbert build` and `hilbert verify --sources`, with the agent parameter
//! values the listing's header gives (`-- param Agent.name=value`, as `--param` takes them),
//! and the slice of the listing's network (`Ir::slice`) must be the certificate's IR, byte for
//! byte. So the listing is not only read as source by a person: it is the IR, as the language.
//!
//! A listing carries no more than the IR does, so what the lowering drops cannot come back:
//! what a binding of another network runs (each is bound to a placeholder plan in the
//! listing), the names of a project's files and the order of its declarations (written in the
//! IR's order), an agent's theory name (`: Agency`), `.ha`/`.hb` `value` helpers (inlined in the
//! formulas), comments and layout. None of it is in the IR, so the round trip still holds: the
//! same IR, from another text. It fails, and says where, only for what is not source: a
//! truncated listing (past [`super::MAX_BYTES`]), a string holding a control character other
//! than a tab or a newline or a bidirectional override (written escaped, for the terminal's
//! sake: the language has no escape for them), and a hostile certificate's indices that point
//! nowhere.

use super::{FILE_MARK, HEADER_NETWORK, HEADER_PARAM, MARK_END, SECTION_MARK};
use crate::project::{self, Loaded};
use crate::{Diagnostic, ParamSpec};
use hilbert_certificates::cert::{self, Body};
use hilbert_certificates::ir::Ir;

/// The source a listing writes: its files, the parameter values to lower them with, and the
/// network whose slice is the certificate's IR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// Each file's name (`Operator.ha`, `Line.hk`) and text, in the listing's order; a name
    /// written twice (two networks' plans of one file) is one file.
    pub files: Vec<(String, String)>,
    /// `AGENT.NAME=VALUE`, as `hilbert build --param` takes them.
    pub params: Vec<String>,
    /// The certificate's network, `Agent.Binding`.
    pub network: Option<String>,
}

/// The source files, parameter values and network of a listing (what [`super::listing`]
/// writes): the lines after each `-- === file NAME ===` up to the next `-- === … ===`, and the
/// header's `-- param` and `network` lines.
pub fn sources(listing: &str) -> Result<Listed, String> {
    let mut listed = Listed::default();
    let mut current: Option<usize> = None;
    let network_line = format!("--   {HEADER_NETWORK}");
    let param_line = format!("-- {HEADER_PARAM}");
    for line in listing.lines() {
        if line == "… (listing truncated)" {
            return Err(String::from(
                "the listing is truncated: its source is not whole",
            ));
        }
        if let Some(rest) = line.strip_prefix(FILE_MARK) {
            let name = rest.strip_suffix(MARK_END).unwrap_or(rest).to_string();
            current = Some(match listed.files.iter().position(|(n, _)| *n == name) {
                Some(i) => i,
                None => {
                    listed.files.push((name, String::new()));
                    listed.files.len() - 1
                }
            });
            continue;
        }
        if line.starts_with(SECTION_MARK) {
            current = None;
            continue;
        }
        match current {
            Some(i) => {
                let text = &mut listed.files[i].1;
                text.push_str(line);
                text.push('\n');
            }
            None => {
                if let Some(p) = line.strip_prefix(&param_line) {
                    listed.params.push(p.to_string());
                } else if listed.network.is_none()
                    && let Some(rest) = line.strip_prefix(&network_line)
                {
                    listed.network = rest.split_once(": ").map(|(_, n)| n.to_string());
                }
            }
        }
    }
    if listed.files.is_empty() {
        return Err(String::from("the listing has no source files"));
    }
    Ok(listed)
}

/// What went wrong, one line per error: `HK0006 Line.hk:3: message: the line`.
fn describe(loaded: &Loaded, errors: &[Diagnostic]) -> String {
    let mut text = String::new();
    for d in errors.iter().take(8) {
        let file = loaded.sources.get(d.span.file);
        let (line, _) = file.line_col(d.span.start);
        text.push_str(&format!(
            "{} {}:{line}: {}: `{}`\n",
            d.code,
            file.path,
            d.message,
            file.line_text(line).trim()
        ));
    }
    if errors.len() > 8 {
        text.push_str(&format!("… and {} more\n", errors.len() - 8));
    }
    text
}

/// The IR the listed source lowers to (checked and lowered as `hilbert build` would, with the
/// listed parameter values), sliced to the listed network.
pub fn lower(listed: &Listed) -> Result<Ir, String> {
    let mut loaded = Loaded::default();
    for (name, text) in &listed.files {
        project::add_bytes(&mut loaded, name.clone(), text.clone().into_bytes());
    }
    let specs = listed
        .params
        .iter()
        .map(|p| ParamSpec::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    // Checked and lowered as `hilbert build --param …` and `hilbert verify --sources` do.
    let (_, lowered) = crate::lower_project_params(&loaded, &specs)?;
    let ir = match lowered {
        Ok((ir, _)) => ir,
        Err(errors) => {
            return Err(format!(
                "the listed source does not check or lower:\n{}",
                describe(&loaded, &errors)
            ));
        }
    };
    let Some(name) = &listed.network else {
        return Err(String::from("the listing names no network"));
    };
    let n = ir
        .networks
        .iter()
        .position(|net| {
            ir.agents
                .get(net.agent.0 as usize)
                .is_some_and(|a| format!("{}.{}", a.name, net.binding) == *name)
        })
        .ok_or_else(|| format!("the listed source has no network {name}"))?;
    ir.slice(n)
        .ok_or_else(|| format!("the network {name} of the listed source has no slice"))
}

/// The IR a listing's source lowers to: [`sources`], then [`lower`].
pub fn relower(listing: &str) -> Result<Ir, String> {
    lower(&sources(listing)?)
}

/// The round trip of a certificate: its listing ([`super::listing`]) lowered again must be its
/// IR, byte for byte. The error says why not: the source does not check or lower, or the first
/// place where the two IRs differ.
pub fn round_trip(path: &str, body: &Body) -> Result<(), String> {
    let text = super::listing(path, body);
    let ir = relower(&text)?;
    if cert::ir_bytes(&ir) == cert::ir_bytes(&body.ir) {
        return Ok(());
    }
    Err(first_difference(&body.ir, &ir))
}

/// The round trip of network `n` of a lowered IR as a build certifies it: its slice
/// (`Ir::slice`), listed as a certificate of it (with no states or witnesses: the source is its
/// IR alone) and lowered again, must be the slice byte for byte. For tests and generators that
/// have an IR and no certificate.
pub fn round_trip_network(ir: &Ir, n: usize) -> Result<(), String> {
    let slice = ir
        .slice(n)
        .ok_or_else(|| format!("the IR has no network {n}"))?;
    let body = Body {
        tool: String::from("round trip"),
        sources: Vec::new(),
        ir_sha256: cert::sha256(&cert::ir_bytes(&slice)),
        ir: slice,
        network: 0,
        scene: Default::default(),
        witnesses: Vec::new(),
    };
    round_trip(&format!("network {n}"), &body)
}

/// Where two IRs differ, as the lines of their debug forms around the first that differs.
pub fn first_difference(want: &Ir, got: &Ir) -> String {
    let (a, b) = (format!("{want:#?}"), format!("{got:#?}"));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(12);
    let show = |lines: &[&str]| {
        lines[from.min(lines.len())..(at + 3).min(lines.len())]
            .iter()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    };
    format!(
        "the listing lowers to another IR; at line {} of their debug forms, the certificate's:\n{}the listing's:\n{}",
        at + 1,
        show(&a),
        show(&b)
    )
}

/// The header line [`checked_listing`] adds: `--   round trip  …`.
pub const HEADER_ROUND_TRIP: &str = "--   round trip  ";

/// What `hilbert verify --dump` prints: the listing of a certificate ([`super::listing`]) with
/// its round trip checked, said in a header line after the network's: the source lowers again
/// to this IR byte for byte, or why not (the first line of the reason).
pub fn checked_listing(path: &str, body: &Body) -> String {
    let text = super::listing(path, body);
    let verdict = match relower(&text) {
        Ok(ir) if cert::ir_bytes(&ir) == cert::ir_bytes(&body.ir) => String::from(
            "checked: the source below lowers again to this certificate's IR, byte for byte",
        ),
        Ok(_) => {
            String::from("FAILED: the source below lowers to another IR than this certificate's")
        }
        Err(e) => format!(
            "FAILED: {}",
            e.lines()
                .next()
                .unwrap_or("the source below does not lower")
        ),
    };
    let network_line = format!("--   {HEADER_NETWORK}");
    let mut out = String::with_capacity(text.len() + verdict.len() + 32);
    let mut added = false;
    for line in text.split_inclusive('\n') {
        out.push_str(line);
        if !added && line.starts_with(&network_line) {
            out.push_str(HEADER_ROUND_TRIP);
            out.push_str(&verdict);
            out.push('\n');
            added = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The production line's `Operator.Work` certificate body, but for its states and
    /// witnesses.
    fn work() -> Body {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/production-line");
        let loaded = crate::project::load(&[root.to_string()]).unwrap();
        let (ir, _) = crate::lower_project(&loaded, &Default::default()).unwrap();
        let n = ir
            .networks
            .iter()
            .position(|n| n.binding == "Work")
            .unwrap();
        let ir = ir.slice(n).unwrap();
        Body {
            tool: "hilbert test".into(),
            sources: vec![],
            ir_sha256: cert::sha256(&cert::ir_bytes(&ir)),
            ir,
            network: 0,
            scene: Default::default(),
            witnesses: vec![],
        }
    }

    #[test]
    fn the_listing_splits_into_its_files_and_lowers_to_the_certificates_ir() {
        let body = work();
        let text = crate::listing::listing("w.cert", &body);
        let listed = sources(&text).unwrap();
        let names: Vec<&str> = listed.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Operator.ha", "Line.hk", "Elsewhere.hk"]);
        assert_eq!(listed.network.as_deref(), Some("Operator.Work"));
        assert!(listed.params.is_empty());
        // Nothing of the header, the states or the witnesses is in a file but as a comment.
        for (_, file) in &listed.files {
            assert!(!file.contains("=== "), "{file}");
        }
        assert_eq!(round_trip("w.cert", &body), Ok(()));
        let checked = checked_listing("w.cert", &body);
        assert!(
            checked.contains(&format!("{HEADER_ROUND_TRIP}checked: ")),
            "{checked}"
        );
        // The same lines but the one added.
        assert_eq!(checked.lines().count(), text.lines().count() + 1);
    }

    #[test]
    fn an_edited_listing_lowers_to_another_ir() {
        let body = work();
        let text = crate::listing::listing("w.cert", &body);
        // A goal weakened, a plan's step changed, an argument changed: each is another IR.
        for (from, to) in [
            ("made(v0) and v0 < 3", "made(v0) and v0 <= 3"),
            ("believe made(made + n) ;", "believe made(made - n) ;"),
            ("Build(parts, 0) ;", "Build(parts, 1) ;"),
        ] {
            assert!(text.contains(from), "{from}");
            let edited = text.replacen(from, to, 1);
            let ir = relower(&edited).unwrap();
            assert_ne!(cert::ir_bytes(&ir), cert::ir_bytes(&body.ir), "{to}");
            assert!(first_difference(&body.ir, &ir).contains("another IR"));
        }
        // A listing whose source does not check says why, by code and line.
        let broken = text.replacen("believe made(0)", "believe unmade(0)", 1);
        let e = relower(&broken).unwrap_err();
        assert!(
            e.contains("does not check") && e.contains("Line.hk:"),
            "{e}"
        );
        let mut body = body;
        body.ir.agents[0].desires[0].priority = 7;
        body.ir.agents[0].desires[0].name = "Pro\u{1b}duced".into();
        let checked = checked_listing("w.cert", &body);
        assert!(
            checked.contains(&format!("{HEADER_ROUND_TRIP}FAILED: ")),
            "{checked}"
        );
    }

    #[test]
    fn text_that_is_not_a_listing_is_refused_without_panicking() {
        for text in [
            "",
            "plan P() : A := SKIP",
            "-- === file A.ha ===\nagent",
            "-- === file A.ha ===\n-- param A.x\n",
            "-- === file A.ha ===\nagent A { }\n-- param =3\n",
            "-- === file A.ha ===\nagent A { commit blind attention X initially }\n--   network     0: A.Nothing\n",
            "-- === file ===\n\u{0}\u{202e}(((((",
            "… (listing truncated)",
        ] {
            assert!(relower(text).is_err(), "{text}");
        }
        // Random bytes, and a listing cut anywhere.
        let body = work();
        let listing = crate::listing::listing("w.cert", &body);
        let mut x: u64 = 0x2545_f491;
        for cut in (0..listing.len()).step_by(97) {
            if listing.is_char_boundary(cut) {
                let _ = relower(&listing[..cut]);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let alphabet = b"-=( )|;:ab\n\"AB.{}";
            let noise: String = (0..64)
                .map(|i| char::from(alphabet[((x >> (i % 60)) % alphabet.len() as u64) as usize]))
                .collect();
            let _ = relower(&format!("-- === file A.ha ===\n{noise}"));
        }
    }
}
