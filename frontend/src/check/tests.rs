//! Tests of the checks, through source text: each builds a small project in memory, parses and
//! checks it, and compares the codes and lines reported.

use crate::project::{Loaded, add_bytes};
use crate::{Diagnostic, check_project};

const SEED_HA: &str = include_str!("../../../examples/production-line/Operator.ha");
const SEED_HK: &str = include_str!("../../../examples/production-line/Line.hk");

/// Checks the files (`(path, text)`) and returns every diagnostic.
fn diagnostics(files: &[(&str, &str)]) -> (Loaded, Vec<Diagnostic>) {
    let mut loaded = Loaded::default();
    for (path, text) in files {
        add_bytes(&mut loaded, (*path).to_string(), text.as_bytes().to_vec());
    }
    let checked = check_project(&loaded);
    (loaded, checked.diagnostics)
}

/// `CODE path:line` for every diagnostic, in order.
fn codes(files: &[(&str, &str)]) -> Vec<String> {
    let (loaded, diags) = diagnostics(files);
    diags
        .iter()
        .map(|d| {
            let f = loaded.sources.get(d.span.file);
            format!("{} {}:{}", d.code, f.path, f.line_col(d.span.start).0)
        })
        .collect()
}

#[test]
fn the_seed_checks_clean() {
    let (_, d) = diagnostics(&[("Operator.ha", SEED_HA), ("Line.hk", SEED_HK)]);
    assert!(d.is_empty(), "{d:#?}");
}

// ---------------------------------------------------------------- the docs' examples

/// One fenced block of a diagnostic doc: its dialect tag, file name, whether it is `fixed`, text.
struct Block {
    file: String,
    fixed: bool,
    text: String,
}

fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = md.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let words: Vec<&str> = info.split_whitespace().collect();
        let mut text = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        if !matches!(words.first(), Some(&("ha" | "hk" | "hb"))) {
            continue;
        }
        let Some(file) = words.iter().find_map(|w| w.strip_prefix("file=")) else {
            continue;
        };
        out.push(Block {
            file: file.to_string(),
            fixed: words.contains(&"fixed"),
            text,
        });
    }
    out
}

/// Every check code has a doc whose example reports it with the documented severity, and whose
/// fixed project does not report it (and reports no error at all).
#[test]
fn every_check_code_has_a_doc_whose_examples_hold() {
    use super::codes;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics");
    let mut failures = Vec::new();
    for &code in codes::ALL {
        let path = dir.join(format!("{code}.md"));
        let Ok(md) = std::fs::read_to_string(&path) else {
            failures.push(format!("{code}: no {}", path.display()));
            continue;
        };
        if !md.starts_with(&format!("# {code}: ")) {
            failures.push(format!(
                "{code}: the title line must start with `# {code}: `"
            ));
        }
        let sev = codes::severity(code)
            .map(|s| s.to_string())
            .unwrap_or_default();
        if !md.lines().any(|l| l.trim() == format!("Severity: {sev}")) {
            failures.push(format!("{code}: expected `Severity: {sev}`"));
        }
        let bs = blocks(&md);
        let failing: Vec<(&str, &str)> = bs
            .iter()
            .filter(|b| !b.fixed)
            .map(|b| (b.file.as_str(), b.text.as_str()))
            .collect();
        let (_, diags) = diagnostics(&failing);
        match diags.iter().find(|d| d.code == code) {
            None => failures.push(format!(
                "{code}: the example does not report it; it reports {:?}",
                diags.iter().map(|d| d.code.to_string()).collect::<Vec<_>>()
            )),
            Some(d) if d.severity.to_string() != sev => failures.push(format!(
                "{code}: reported as {}, documented as {sev}",
                d.severity
            )),
            Some(_) => {}
        }
        if bs.iter().any(|b| b.fixed) {
            let mut fixed: Vec<(&str, &str)> = failing.clone();
            for b in bs.iter().filter(|b| b.fixed) {
                match fixed.iter_mut().find(|(f, _)| *f == b.file) {
                    Some(slot) => slot.1 = b.text.as_str(),
                    None => fixed.push((b.file.as_str(), b.text.as_str())),
                }
            }
            let (_, diags) = diagnostics(&fixed);
            if !diags.is_empty() {
                failures.push(format!(
                    "{code}: the fixed example reports {:?}",
                    diags
                        .iter()
                        .map(|d| format!("{} {}", d.code, d.message))
                        .collect::<Vec<_>>()
                ));
            }
        } else if code != codes::DUPLICATE_PLAN_FILE {
            // (the fix for a duplicate stem is renaming a file, which a block cannot show)
            failures.push(format!("{code}: no `fixed` block"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- helpers for targeted tests

/// A one-agent project: the agent's members (inside the braces) and the plan file's text. The
/// agent has a parameter `line: String`, the beliefs `done(n: Int)`, `other(n: Int)` and
/// `alarm(s: String)` and `goal(n: Int)` (`Finished` is achieved by `goal(1)`), and binds `Work` to `Line.Finish`.
fn project(members: &str, plans: &str) -> Vec<String> {
    let ha = format!(
        "agent Operator(line: String) : Agency\n{{\n  belief done(n: Int)\n  belief other(n: Int)\n  belief alarm(s: String)\n  belief goal(n: Int)\n  desire Finished reachable by [Work]\n  commit single_minded\n  achieved Finished when B(self) goal(1)\n  plan Work ↦ Line.Finish\n{members}\n}}\n"
    );
    codes(&[("Operator.ha", &ha), ("Line.hk", plans)])
}

const PLANS: &str =
    "plan Finish() : Operator ≔ believe done(1) ; believe other(1) ; believe alarm(\"x\")\n";

/// The codes only (no lines), sorted.
fn only_codes(v: Vec<String>) -> Vec<String> {
    let mut c: Vec<String> = v.into_iter().map(|s| s[..6].to_string()).collect();
    c.sort();
    c
}

fn cond(c: &str) -> Vec<String> {
    only_codes(project(
        &format!("  intend Work for Finished when {c}"),
        PLANS,
    ))
}

// ---------------------------------------------------------------- the seed

#[test]
fn the_seed_in_ascii_checks_clean() {
    let ha = include_str!("../../../tests/cases/seed-ascii/Operator.ha");
    let hk = include_str!("../../../tests/cases/seed-ascii/Line.hk");
    let (_, d) = diagnostics(&[("Operator.ha", ha), ("Line.hk", hk)]);
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn the_seed_resolves_to_a_program() {
    let mut loaded = Loaded::default();
    add_bytes(&mut loaded, "Operator.ha".into(), SEED_HA.into());
    add_bytes(&mut loaded, "Line.hk".into(), SEED_HK.into());
    let parsed: Vec<crate::ParsedFile> = loaded
        .sources
        .files()
        .iter()
        .map(|f| crate::ParsedFile::parse(f).0)
        .collect();
    let (p, d) = super::resolve(&loaded.sources, &parsed);
    assert!(d.is_empty());
    let (id, op) = p.agent("Operator").expect("the agent");
    assert_eq!(
        op.beliefs
            .iter()
            .map(|b| b.name.as_str())
            .collect::<Vec<_>>(),
        ["made", "alarm", "safe", "halted"]
    );
    assert_eq!(op.beliefs[0].fields[0].ty, super::Ty::Int);
    assert_eq!(op.commit, Some(super::CommitmentStrategy::SingleMinded));
    assert_eq!(op.attentions.iter().filter(|a| a.initially).count(), 1);
    let produced = &op.desires[op.desire("Produced").unwrap()];
    assert_eq!(produced.reachable_by, vec![op.binding("Work").unwrap()]);
    assert_eq!(produced.achieved.len(), 1);
    assert_eq!(
        produced.impossible[0].because,
        "the line is in danger, so production stops"
    );
    assert_eq!(op.intends.len(), 2);
    assert_eq!(op.rewards.len(), 1);
    let line = p.plan_file("Line").expect("Line.hk");
    let super::BindingTarget::Plan(work) = op.bindings[op.binding("Work").unwrap()].target else {
        panic!("Work is bound to a plan")
    };
    assert_eq!(
        work,
        super::PlanRef {
            file: line.file,
            index: 2
        }
    );
    let produce = p.plan(work).unwrap();
    assert_eq!(produce.name, "Produce");
    assert_eq!(produce.agent, Some(id));
    assert_eq!(produce.labels, ["feed"]);
    assert_eq!(
        produce.channels[0].ty,
        super::Ty::Chan(Box::new(super::Ty::Int))
    );
    let build = &line.plans[1];
    assert_eq!(build.params.len(), 2);
}

// ---------------------------------------------------------------- receives bind the rest of their sequence

fn plan_body(body: &str) -> Vec<String> {
    let hk = format!("plan Finish() : Operator\n{{\n  c : chan Int\n  body ≔ {body}\n}}\n");
    only_codes(
        project("", &hk)
            .into_iter()
            .filter(|c| !c.starts_with("HA") && !c.starts_with("HK0042"))
            .collect(),
    )
}

#[test]
fn a_receive_binds_the_rest_of_its_sequence() {
    assert!(plan_body("(1 → c ‖ x ← c ; believe done(x) ; believe other(x + 1))").is_empty());
    assert!(plan_body("(1 → c ‖ l : x ← c ; believe done(x))").is_empty());
}

#[test]
fn a_receive_does_not_bind_outside_its_sequence() {
    // after the group that contains it
    assert_eq!(plan_body("(1 → c ‖ x ← c) ; believe done(x)"), ["HK0028"]);
    // in a parallel branch
    assert_eq!(plan_body("(x ← c ‖ 1 → c ; believe done(x))"), ["HK0028"]);
    // in another arm of a match
    assert_eq!(
        plan_body("(1 → c ‖ match 1 { when 1 ↦ x ← c  other ↦ believe done(x) })"),
        ["HK0028"]
    );
    // before the receive
    assert_eq!(plan_body("(1 → c ‖ believe done(x) ; x ← c)"), ["HK0028"]);
}

#[test]
fn a_receive_out_of_scope_points_at_the_receive() {
    let hk = "plan Finish() : Operator\n{\n  c : chan Int\n  body ≔ (1 → c ‖ x ← c) ; believe done(x)\n}\n";
    let ha = SEED_HA
        .replace("plan Work ↦ Line.Produce", "plan Work ↦ Line.Finish")
        .replace("plan Stop ↦ Line.Shutdown", "plan Stop ↦ Line.Finish");
    let (_, d) = diagnostics(&[("Operator.ha", &ha), ("Line.hk", hk)]);
    let d = d
        .iter()
        .find(|d| d.code == super::codes::NOT_IN_SCOPE)
        .expect("HK0028");
    assert_eq!(d.secondary.len(), 1, "the receive is labelled");
    assert!(d.notes[0].contains("rest of its own sequence"));
}

#[test]
fn channels_and_values_are_different_things() {
    assert_eq!(plan_body("1 → done"), ["HK0028"]);
    assert_eq!(plan_body("believe done(c)"), ["HK0027"]);
    assert_eq!(
        plan_body("(\"a\" → c ‖ x ← c ; believe done(x))"),
        ["HK0029"]
    );
    let hk = "plan Finish(k: Int) : Operator ≔ 1 → k ; believe done(k)\n";
    let ha_members = "";
    let v = only_codes(project(ha_members, hk));
    assert!(v.contains(&"HK0027".to_string()), "{v:?}");
}

#[test]
fn calls_take_channels_for_channels_and_values_for_values() {
    let hk = |call: &str| {
        format!(
            "plan Send(c: chan Int, k: Int) : Operator ≔ k → c\nplan Finish() : Operator\n{{\n  c : chan Int\n  d : chan String\n  body ≔ ({call} ‖ x ← c ; believe done(x))\n}}\n"
        )
    };
    let run = |call: &str| {
        only_codes(
            project("", &hk(call))
                .into_iter()
                .filter(|c| !c.starts_with("HK0042") && !c.starts_with("HA"))
                .collect(),
        )
    };
    assert!(run("Send(c, 1)").is_empty());
    assert_eq!(run("Send(1, 1)"), ["HK0032"]);
    assert_eq!(run("Send(c, c)"), ["HK0032"]);
    assert_eq!(run("Send(d, 1)"), ["HK0029"]);
    assert_eq!(run("Send(c, \"one\")"), ["HK0029"]);
    assert_eq!(run("Send(c)"), ["HK0031"]);
    assert_eq!(run("Sned(c, 1)"), ["HK0030"]);
}

#[test]
fn labels_and_commands() {
    assert!(plan_body("(w : believe done(1) ‖ abort w)").is_empty());
    assert!(plan_body("(believe done(1) ‖ abort self)").is_empty());
    assert_eq!(plan_body("(w : believe done(1) ‖ stop v)"), ["HK0035"]);
    assert_eq!(plan_body("(w : believe done(1) ‖ w : SKIP)"), ["HK0034"]);
    // a label of a handler is a label of the plan
    let hk = "plan Finish() : Operator\n{\n  body ≔ believe done(1) ; restart h\n  on abort ≔ h : SKIP\n}\n";
    let got: Vec<String> = project("", hk)
        .into_iter()
        .filter(|c| !c.starts_with("HA"))
        .collect();
    assert!(got.is_empty(), "{got:?}");
}

#[test]
fn matches() {
    assert_eq!(
        plan_body("match 2 { when 1 ↦ believe done(1) }"),
        ["HK0040"]
    );
    assert!(plan_body("match 1 { when 1 ↦ believe done(1) }").is_empty());
    assert_eq!(
        plan_body("match 1 { when \"a\" ↦ believe done(1)  other ↦ SKIP }"),
        ["HK0029"]
    );
    assert_eq!(
        plan_body("match 1 { when 1 ↦ believe done(1)  when 1 ↦ SKIP }"),
        ["HK0039"]
    );
}

// ---------------------------------------------------------------- binding in conditions

#[test]
fn a_pattern_under_not_binds_nothing() {
    assert_eq!(cond("¬B(self) done(n) ∧ n < 3"), ["HA0038"]);
    assert_eq!(cond("¬B(self) done(n)"), ["HA0038"]);
    assert!(cond("¬B(self) done(_)").is_empty());
    // a conjunction under ¬ binds inside it
    assert!(cond("¬(B(self) done(n) ∧ n < 3)").is_empty());
    // a positive pattern binds for the negated one after it
    assert!(cond("B(self) other(n) ∧ ¬B(self) done(n)").is_empty());
    // but not before it: conditions are read from left to right
    assert_eq!(cond("¬B(self) done(n) ∧ B(self) other(n)"), ["HA0038"]);
}

#[test]
fn both_sides_of_or_must_bind() {
    assert!(cond("(B(self) done(n) ∨ B(self) other(n)) ∧ n < 3").is_empty());
    assert_eq!(
        cond("(B(self) done(n) ∨ B(self) other(1)) ∧ n < 3"),
        ["HA0038"]
    );
    assert_eq!(cond("B(self) done(n) ∨ n < 3"), ["HA0038"]);
}

#[test]
fn patterns_bind_from_left_to_right() {
    assert!(cond("B(self) done(n) ∧ n < 3").is_empty());
    assert_eq!(cond("n < 3 ∧ B(self) done(n)"), ["HA0038"]);
    assert!(cond("B(self) done(n) ∧ B(self) other(m) ∧ n < m").is_empty());
    assert!(cond("(B(self) done(n) ∧ n < 3) ∧ n > 0").is_empty());
    let (_, d) = diagnostics(&[
        (
            "Operator.ha",
            &SEED_HA.replace("B(self) made(n) ∧ n < 3", "n < 3 ∧ B(self) made(n)"),
        ),
        ("Line.hk", SEED_HK),
    ]);
    assert_eq!(d.len(), 1);
    assert!(
        d[0].help
            .as_deref()
            .unwrap_or("")
            .contains("move the pattern"),
        "{:?}",
        d[0]
    );
}

#[test]
fn agent_parameters_are_constants() {
    assert!(cond("B(self) alarm(line)").is_empty());
    assert!(cond("B(self) done(n) ∧ line = \"north\" ∧ n < 3").is_empty());
    assert_eq!(cond("B(self) done(n) ∧ m < 3"), ["HA0038"]);
}

#[test]
fn types_in_conditions() {
    assert_eq!(cond("B(self) done(n) ∧ B(self) alarm(n)"), ["HA0035"]);
    assert_eq!(cond("B(self) alarm(s) ∧ s < 3"), ["HA0035"]);
    assert_eq!(cond("B(self) alarm(s) ∧ s < \"b\""), ["HA0035"]);
    assert_eq!(cond("B(self) done(\"one\")"), ["HA0035"]);
    assert_eq!(cond("B(self) done(n) ∧ n + 1"), ["HA0036"]);
    assert_eq!(cond("3"), ["HA0036"]);
    assert_eq!(cond("B(self) done(1, 2)"), ["HA0034"]);
    assert_eq!(cond("B(self) don(1)"), ["HA0033"]);
    assert_eq!(cond("B(Boss) done(1)"), ["HA0037"]);
    assert_eq!(cond("attending Nowhere"), ["HA0030"]);
}

#[test]
fn another_agents_beliefs() {
    let sup = "agent Supervisor() : Agency\n{\n  belief ok(n: Int)\n  commit blind\n}\n";
    let ha = SEED_HA.replace(
        "intend Stop for Safe when B(self) alarm(\"raised\")",
        "intend Stop for Safe when B(self) alarm(\"raised\") ∧ ¬B(Supervisor) ok(1)",
    );
    let hk = SEED_HK.replace("believe safe(1)", "believe safe(1) ; tell Supervisor ok(1)");
    assert!(
        codes(&[
            ("Operator.ha", &ha),
            ("Supervisor.ha", sup),
            ("Line.hk", &hk)
        ])
        .is_empty()
    );
    let bad = ha.replace("B(Supervisor) ok(1)", "B(Supervisor) made(1)");
    let got = only_codes(codes(&[
        ("Operator.ha", &bad),
        ("Supervisor.ha", sup),
        ("Line.hk", &hk),
    ]));
    assert_eq!(got, ["HA0033"]);
    let told_self = SEED_HK.replace("believe safe(1)", "believe safe(1) ; tell Operator safe(1)");
    let got = only_codes(codes(&[("Operator.ha", SEED_HA), ("Line.hk", &told_self)]));
    assert_eq!(got, ["HK0038"]);
}

// ---------------------------------------------------------------- the satisfiability procedure

#[test]
fn certainly_unsatisfiable_conditions_warn() {
    for c in [
        "B(self) done(1) ∧ ¬B(self) done(1)",
        "B(self) done(n) ∧ ¬B(self) done(_)",
        "B(self) done(n) ∧ n > 3 ∧ n < 2",
        "B(self) done(n) ∧ n ≥ 1 ∧ n ≤ 2 ∧ n ≠ 1 ∧ n ≠ 2",
        "B(self) done(n) ∧ n < n",
        "line = \"a\" ∧ line = \"b\"",
        "line = \"a\" ∧ line ≠ \"a\"",
        "false",
        "1 > 2",
        "B(self) done(n) ∧ ¬(n < 5) ∧ n < 3",
        "(B(self) done(1) ∨ false) ∧ ¬B(self) done(1)",
    ] {
        assert_eq!(cond(c), ["HA0052"], "{c}");
    }
    let att = "  attention A initially\n  attention C\n  when B(self) done(1) attend C\n  intend Work for Finished when attending A ∧ attending C";
    assert_eq!(only_codes(project(att, PLANS)), ["HA0052"]);
    let att = "  attention A initially\n  intend Work for Finished when attending A ∧ ¬attending A";
    assert_eq!(only_codes(project(att, PLANS)), ["HA0052"]);
}

#[test]
fn satisfiable_or_undecided_conditions_do_not_warn() {
    for c in [
        // belief sets are sets: both may be believed
        "B(self) done(0) ∧ B(self) done(3)",
        "B(self) done(n) ∧ ¬B(self) done(3)",
        "B(self) done(n) ∧ B(self) done(m) ∧ n < 1 ∧ m > 5",
        // each disjunct binds its own n
        "(B(self) done(n) ∧ n < 1) ∨ (B(self) other(n) ∧ n > 5)",
        "B(self) done(n) ∧ n ≥ 1 ∧ n ≤ 2 ∧ n ≠ 1",
        "¬B(self) done(1) ∧ B(self) done(2)",
        "true",
    ] {
        assert!(cond(c).is_empty(), "{c}: {:?}", cond(c));
    }
    // unsatisfiable, but a universal under ¬: the solver-free procedure does not decide it,
    // Z3 does (after lowering)
    let c = "¬(B(self) done(n) ∧ n < 3) ∧ B(self) done(1)";
    assert_eq!(cond(c), ["HA0052"], "{c}");
}

#[test]
fn the_procedure_gives_up_beyond_its_bound() {
    // 2^7 = 128 disjuncts, every one contradictory: beyond the bound the procedure concludes
    // nothing, and Z3 decides it (its tests of ground atoms read one slot each: issue 32)
    let pair = "(B(self) done(1) ∨ B(self) done(2))";
    let mut c = [pair; 7].join(" ∧ ");
    c.push_str(" ∧ false");
    let members = format!("  intend Work for Finished when {c}");
    let ha = format!(
        "agent Operator() : Agency\n{{\n  belief done(n: Int)\n  belief other(n: Int)\n  belief alarm(s: String)\n  belief goal(n: Int)\n  desire Finished reachable by [Work]\n  commit single_minded\n  achieved Finished when B(self) goal(1)\n  plan Work ↦ Line.Finish\n{members}\n}}\n"
    );
    let (_, d) = diagnostics(&[("Operator.ha", &ha), ("Line.hk", PLANS)]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.to_string(), "HA0052");
    assert!(d[0].label.contains("(Z3)"), "{d:#?}");
    // 2^5 = 32 is within it
    let mut c = [pair; 5].join(" ∧ ");
    c.push_str(" ∧ false");
    assert_eq!(cond(&c), ["HA0052"]);
}

// ---------------------------------------------------------------- adopted and released at once

fn intend_achieved(intend: &str, achieved: &[&str]) -> Vec<String> {
    let mut members =
        format!("  intend Work for Goal when {intend}\n  desire Goal reachable by [Work]\n");
    for a in achieved {
        members.push_str(&format!("  achieved Goal when {a}\n"));
    }
    only_codes(project(&members, PLANS))
}

#[test]
fn an_intend_implying_achieved_warns() {
    assert_eq!(
        intend_achieved("B(self) done(3)", &["B(self) done(3)"]),
        ["HA0053"]
    );
    assert_eq!(
        intend_achieved("B(self) done(n) ∧ n < 3", &["B(self) done(_)"]),
        ["HA0053"]
    );
    assert_eq!(
        intend_achieved("B(self) done(3) ∧ B(self) other(1)", &["B(self) done(3)"]),
        ["HA0053"]
    );
    // several achieved rules: their disjunction
    assert_eq!(
        intend_achieved("B(self) done(3)", &["B(self) done(4)", "B(self) done(3)"]),
        ["HA0053"]
    );
    // (An achieved condition reading the parameter also leaves seriality of R^D and R^I
    // unproved, HA0059: `frontend/tests/frames.rs`.)
    let mut got = intend_achieved("line = \"a\"", &["line = \"a\""]);
    got.retain(|c| c != "HA0059");
    assert_eq!(got, ["HA0053"]);
}

#[test]
fn an_intend_that_can_hold_before_achieved_does_not_warn() {
    // the seed's reading: made(n) with n < 3 can hold without made(3)
    assert!(intend_achieved("B(self) done(n) ∧ n < 3", &["B(self) done(3)"]).is_empty());
    assert!(intend_achieved("¬B(self) done(1)", &["B(self) done(1)"]).is_empty());
    assert!(intend_achieved("B(self) done(3)", &["B(self) done(3) ∧ B(self) other(1)"]).is_empty());
    // implied: the solver-free procedure does not see through the variable, Z3 does
    assert_eq!(
        intend_achieved("B(self) done(n) ∧ n = 3", &["B(self) done(3)"]),
        ["HA0053"]
    );
}

// ---------------------------------------------------------------- quiet after syntax errors

#[test]
fn no_cascades_after_syntax_errors() {
    // a broken `achieved` line is dropped by the parser: no "no achieved rule" follows
    let ha = SEED_HA.replace(
        "achieved Safe when B(self) safe(1)",
        "achieved Safe when B(self) safe(1",
    );
    let got = only_codes(codes(&[("Operator.ha", &ha), ("Line.hk", SEED_HK)]));
    assert!(got.iter().all(|c| c.as_str() < "HA0020"), "{got:?}");
    // a belief whose fields were lost: no arity errors in conditions or plans
    let ha = SEED_HA.replace("belief made(count: Int)", "belief made(count Int)");
    let got = only_codes(codes(&[("Operator.ha", &ha), ("Line.hk", SEED_HK)]));
    assert!(got.iter().all(|c| c.as_str() < "HA0020"), "{got:?}");
    // a plan file that is not UTF-8: the bindings into it are not reported
    let mut loaded = Loaded::default();
    add_bytes(&mut loaded, "Operator.ha".into(), SEED_HA.into());
    add_bytes(&mut loaded, "Line.hk".into(), vec![b'p', 0xff, b'\n']);
    let d = check_project(&loaded).diagnostics;
    assert_eq!(d.len(), 1, "{d:#?}");
    // a broken plan: no unknown-label or unused warnings
    let hk = SEED_HK.replace("abort feed)", "abort feed");
    let got = only_codes(codes(&[("Operator.ha", SEED_HA), ("Line.hk", &hk)]));
    assert!(got.iter().all(|c| c.as_str() < "HK0020"), "{got:?}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Deleting any stretch of the seed's text never makes the checks panic.
    #[test]
    fn checks_never_panic_on_damaged_seeds(a in 0usize..2000, len in 0usize..40, which in 0usize..2) {
        let text = if which == 0 { SEED_HA } else { SEED_HK };
        let mut start = a.min(text.len());
        while !text.is_char_boundary(start) { start -= 1; }
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        let damaged = format!("{}{}", &text[..start], &text[end..]);
        let (ha, hk) = if which == 0 { (damaged.as_str(), SEED_HK) } else { (SEED_HA, damaged.as_str()) };
        let _ = diagnostics(&[("Operator.ha", ha), ("Line.hk", hk)]);
    }
}

/// The seed's trees with `Error` nodes put where the parser would put them after recovering: the
/// checks accept every `Error` quietly (no follow-on diagnostics).
#[test]
fn error_nodes_are_checked_quietly() {
    use crate::syntax::ast::*;
    let mut loaded = Loaded::default();
    add_bytes(&mut loaded, "Operator.ha".into(), SEED_HA.into());
    add_bytes(&mut loaded, "Line.hk".into(), SEED_HK.into());
    let mut parsed: Vec<crate::ParsedFile> = loaded
        .sources
        .files()
        .iter()
        .map(|f| crate::ParsedFile::parse(f).0)
        .collect();
    let err_expr = |span| Expr {
        kind: ExprKind::Error,
        span,
    };
    for p in &mut parsed {
        match &mut p.module {
            Module::Agents(f) => {
                for m in &mut f.agents[0].members {
                    match &mut m.kind {
                        MemberKind::Intend { cond, .. } | MemberKind::Reward { cond, .. } => {
                            *cond = std::sync::Arc::new(err_expr(cond.span))
                        }
                        MemberKind::Achieved { cond, .. } => {
                            // an error inside a condition: `B(self) made(<error>)`
                            if let ExprKind::Believes { atom, .. } =
                                &mut std::sync::Arc::make_mut(cond).kind
                            {
                                atom.args[0] = err_expr(atom.args[0].span);
                            }
                        }
                        MemberKind::Belief { params, .. } => {
                            for q in params {
                                q.ty.kind = TypeKind::Error;
                            }
                        }
                        _ => {}
                    }
                }
                f.agents[0].params[0].ty.kind = TypeKind::Error;
            }
            Module::Plans(f) => {
                // Build's body and Shutdown's body become errors; Produce's handler believes an error
                f.plans[1].body = Some(Proc {
                    kind: ProcKind::Error,
                    span: f.plans[1].span,
                });
                f.plans[3].body = Some(Proc {
                    kind: ProcKind::Error,
                    span: f.plans[3].span,
                });
                if let ProcKind::Believe(atom) = &mut f.plans[2].handlers[0].body.kind {
                    atom.args[0] = err_expr(atom.args[0].span);
                }
                f.plans[0].params[0].ty.kind = TypeKind::Error;
            }
            Module::Values(_) => {}
        }
    }
    let (_, d) = super::resolve(&loaded.sources, &parsed);
    let unexpected: Vec<String> = d
        .iter()
        .filter(|d| {
            !matches!(
                d.code,
                super::codes::UNUSED_PARAM | super::codes::UNUSED_BELIEF
            )
        })
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}

/// Names the parser could not read become placeholders (empty names); the checks say nothing
/// about them.
#[test]
fn placeholders_after_syntax_errors_are_not_reported() {
    for body in [
        "believe ; SKIP",
        "forget done(1) ; tell ; SKIP",
        "abort ; believe done(1)",
        "x ← ; believe done(1)",
        "1 → ; believe done(1)",
        "( : believe done(1) ‖ SKIP)",
        "believe done(1) ; (1)",
    ] {
        let hk = format!("plan Finish() : Operator ≔ {body}\n");
        let ha = "agent Operator() : Agency\n{\n  belief done(n: Int)\n  desire Finished reachable by [Work]\n  commit single_minded\n  intend Work for Finished when ¬B(self) done(1)\n  achieved Finished when B(self) done(1)\n  plan Work ↦ Line.Finish\n}\n";
        let got = only_codes(codes(&[("Operator.ha", ha), ("Line.hk", &hk)]));
        assert!(!got.is_empty(), "{body}: a syntax error is expected");
        assert!(got.iter().all(|c| &c[2..] < "0020"), "{body}: {got:?}");
    }
    for line in [
        "  intend for Finished when ¬B(self) done(1)",
        "  when B(self) done(1) attend",
        "  achieved Finished when B() done(1)",
        "  belief (n: Int)",
        "  commit",
        "  plan  ↦ Line.Finish",
    ] {
        let ha = format!(
            "agent Operator() : Agency\n{{\n  belief done(n: Int)\n  desire Finished reachable by [Work]\n  commit single_minded\n  intend Work for Finished when ¬B(self) done(1)\n  achieved Finished when B(self) done(1)\n  plan Work ↦ Line.Finish\n{line}\n}}\n"
        );
        let got = only_codes(codes(&[
            ("Operator.ha", &ha),
            ("Line.hk", "plan Finish() : Operator ≔ believe done(1)\n"),
        ]));
        assert!(!got.is_empty(), "{line}: a syntax error is expected");
        assert!(got.iter().all(|c| &c[2..] < "0020"), "{line}: {got:?}");
    }
    for line in [
        "  option  ≔ 1.0",
        "  policy softmax( = 0.5)",
        "  option Work ≔ .n",
    ] {
        let hb = format!("values Operator {{\n{line}\n}}\n");
        let got = only_codes(codes(&[
            ("Operator.ha", SEED_HA),
            ("Line.hk", SEED_HK),
            ("Values.hb", &hb),
        ]));
        assert!(!got.is_empty(), "{line}: a syntax error is expected");
        assert!(got.iter().all(|c| &c[2..] < "0020"), "{line}: {got:?}");
    }
}

#[test]
fn the_design_notes_values_block_checks_clean_and_resolves() {
    let hb = "values Operator {\n  option Work ≔ 1.0 - 0.1 * made.count      -- numeric features read from beliefs\n  option Stop ≔ 10.0 + learned(Stop)          -- learned(P): value learned from P's rewards\n  policy softmax(temperature = 0.5)\n}\n";
    let (_, d) = diagnostics(&[
        ("Operator.ha", SEED_HA),
        ("Line.hk", SEED_HK),
        ("Values.hb", hb),
    ]);
    assert!(d.is_empty(), "{d:#?}");
    let mut loaded = Loaded::default();
    for (p, t) in [
        ("Operator.ha", SEED_HA),
        ("Line.hk", SEED_HK),
        ("Values.hb", hb),
    ] {
        add_bytes(&mut loaded, p.into(), t.into());
    }
    let parsed: Vec<crate::ParsedFile> = loaded
        .sources
        .files()
        .iter()
        .map(|f| crate::ParsedFile::parse(f).0)
        .collect();
    let (p, _) = super::resolve(&loaded.sources, &parsed);
    assert_eq!(p.values.len(), 1);
    assert_eq!(
        p.values[0].policy,
        super::Policy::Softmax { temperature: 0.5 }
    );
    assert_eq!(
        p.values[0]
            .options
            .iter()
            .map(|(b, _)| *b)
            .collect::<Vec<_>>(),
        [0, 1]
    );
}

#[test]
fn policies_and_their_arguments() {
    let run = |policy: &str| {
        let hb = format!("values Operator {{\n  option Work ≔ 1.0\n  policy {policy}\n}}\n");
        only_codes(codes(&[
            ("Operator.ha", SEED_HA),
            ("Line.hk", SEED_HK),
            ("Values.hb", &hb),
        ]))
    };
    assert!(run("greedy").is_empty());
    assert!(run("epsilon_greedy(epsilon = 0)").is_empty());
    assert!(run("epsilon_greedy(epsilon = 1)").is_empty());
    assert!(run("ucb(c = 0)").is_empty());
    assert_eq!(run("greedy(epsilon = 0.1)"), ["HB0028"]);
    assert_eq!(run("softmax"), ["HB0028"]);
    assert_eq!(
        run("softmax(temperature = 0.5, temperature = 1.0)"),
        ["HB0028"]
    );
    assert_eq!(run("softmax(temperature = 0)"), ["HB0029"]);
    assert_eq!(run("ucb(c = -1)"), ["HB0029"]);
    assert_eq!(run("epsilon_greedy(epsilon = -0.1)"), ["HB0029"]);
    assert_eq!(run("softmax(temperature = made)"), ["HB0029"]);
    assert_eq!(run("boltzmann(temperature = 1.0)"), ["HB0027"]);
}
