//! Counterexamples as pictures: `hilbert build --trace-svg DIR` writes each refuted theorem's
//! counterexample as an SVG message-sequence chart, and `--trace-format dot` as a Graphviz
//! listing of its state path (`docs/cli.md`, "Counterexamples as pictures").
//!
//! The chart has one lifeline per process of the path (a rendezvous `A → B` is an arrow from A's
//! line to B's, labelled with the channel and the value), one per agent told something (a
//! `tell` is a dashed arrow to it), a row per step, the beliefs a step adds (`+made(1)`) and
//! removes (`−made(0)`) in a column on the right, the lasso's repeating rows shaded, and the
//! final state — a deadlock, a finish without the goal — drawn across every line at the end.
//! Everything is plain SVG 1.1 with its text escaped; no script, no external resource.

use hilbert_prover::obligations::{CexStep, Counterexample, Theorem};

/// Text for XML: `&`, `<`, `>`, `"` and `'` escaped, and every control character that XML 1.0
/// forbids (even escaped) shown as `U+XXXX`.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{7f}' || ('\u{80}'..'\u{a0}').contains(&c) => {
                out.push_str(&format!("U+{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// A file name for a theorem's picture: `Network.Theorem`, made safe for a file name as the
/// SMT-LIB queries' names are (`hilbert_smt::file_safe`).
pub fn file_stem(t: &Theorem) -> String {
    hilbert_smt::file_safe(&format!("{}.{}", t.network, t.name))
}

/// What one step draws: an arrow between two lifelines, or a mark on one.
enum Move<'a> {
    /// A rendezvous: from the sender's lifeline to the receiver's.
    Arrow(&'a str, &'a str),
    /// An internal step (τ, a command) of one process.
    Mark(&'a str),
}

fn parse_move(step: &CexStep) -> Move<'_> {
    match step.process.split_once(" → ") {
        Some((from, to)) => Move::Arrow(from.trim(), to.trim()),
        None => Move::Mark(step.process.trim()),
    }
}

/// The agent a belief is told to, for `B(Client) delivered(7)`: `Client` and `delivered(7)`.
fn told(belief: &str) -> Option<(&str, &str)> {
    let rest = belief.strip_prefix("B(")?;
    let (agent, atom) = rest.split_once(") ")?;
    (agent != "self").then_some((agent, atom))
}

/// Characters kept of a label before it is cut with `…`.
const LABEL: usize = 28;
/// Belief changes listed per step before `… and N more`.
const BELIEFS: usize = 6;

/// A blocked process's line (`Dinner/Fork#1 waits to receive on put0`) as the process and what
/// it waits for.
fn blocked(line: &str) -> (&str, &str) {
    line.split_once(" waits to ")
        .map_or((line, ""), |(who, what)| (who, what))
}

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than a line
/// is cut into pieces).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word = word.to_string();
        while word.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
        }
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// The SVG message-sequence chart of a refuted theorem's counterexample.
pub fn svg(t: &Theorem, cex: &Counterexample) -> String {
    // Lifelines, in order of first appearance; then the agents told something.
    let mut lines: Vec<String> = Vec::new();
    let mut agents: Vec<String> = Vec::new();
    for s in &cex.steps {
        let names: Vec<&str> = match parse_move(s) {
            Move::Arrow(a, b) => vec![a, b],
            Move::Mark(a) => vec![a],
        };
        for n in names {
            if !lines.iter().any(|l| l == n) {
                lines.push(n.to_string());
            }
        }
        for b in &s.beliefs_added {
            if let Some((agent, _)) = told(b)
                && !agents.iter().any(|a| a == agent)
            {
                agents.push(agent.to_string());
            }
        }
    }
    // A process that waits at the deadlock has a lifeline even if it never moved before.
    for b in &cex.blocked {
        let (who, _) = blocked(b);
        if !lines.iter().any(|l| l == who) {
            lines.push(who.to_string());
        }
    }
    if lines.is_empty() {
        lines.push("(the scene)".to_string());
    }
    let told_at = lines.len();
    lines.extend(agents.iter().map(|a| format!("agent {a}")));

    let (col, left, top, row) = (170.0_f64, 30.0_f64, 110.0_f64, 54.0_f64);
    let x = |i: usize| left + col / 2.0 + col * i as f64;
    let beliefs_x = left + col * lines.len() as f64 + 10.0;
    let width = beliefs_x + 300.0;
    let rows = cex.steps.len() + 1;
    let bottom = top + row * rows as f64;
    // What is wrong at the end, wrapped to the chart's width (about 7 pixels a character), and
    // room above it for what each blocked process waits for.
    let conclusion = wrap(
        &format!("⇒ {}", cex.conclusion),
        ((width - 2.0 * left) / 7.0) as usize,
    );
    let waits = if cex.blocked.is_empty() { 0.0 } else { 56.0 };
    // The statement, wrapped too: at most three lines, the rest cut.
    let chars = ((width - 2.0 * left) / 6.5) as usize;
    let mut statement = wrap(&t.statement, chars);
    if statement.len() > 3 {
        statement.truncate(3);
        statement[2] = cut(&format!("{} …", statement[2]), chars);
    }
    // Everything under the heading moves down by the statement's extra lines.
    let dy = 15.0 * statement.len().saturating_sub(1) as f64;
    let height = bottom + 50.0 + waits + 17.0 * conclusion.len() as f64 + dy;
    let mut o = String::new();
    o.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
    ));
    o.push_str(&format!(
        "<title>{}: {} refuted</title>\n",
        xml(&t.network),
        xml(&t.name)
    ));
    o.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#1f3b73\"/></marker>\
<marker id=\"tell\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#7a4b00\"/></marker></defs>\n");
    o.push_str(&format!(
        "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"#ffffff\"/>\n"
    ));
    // Heading: the network, the theorem, what it states, and that it is refuted.
    o.push_str(&format!(
        "<text x=\"{left}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{} — {} <tspan fill=\"#b00020\">refuted</tspan></text>\n",
        xml(&t.network),
        xml(&t.name)
    ));
    for (k, line) in statement.iter().enumerate() {
        o.push_str(&format!(
            "<text class=\"statement\" x=\"{left}\" y=\"{:.0}\" fill=\"#444444\">{}</text>\n",
            44.0 + 15.0 * k as f64,
            xml(line)
        ));
    }
    o.push_str(&format!("<g transform=\"translate(0 {dy:.0})\">\n"));
    // The lasso's repeating part, shaded, under everything else.
    if let Some(from) = cex.cycle_from {
        let y0 = top + row * from as f64 + 4.0;
        let y1 = top + row * cex.steps.len() as f64 + 4.0;
        o.push_str(&format!(
            "<rect x=\"{:.0}\" y=\"{y0:.0}\" width=\"{:.0}\" height=\"{:.0}\" fill=\"#fff3c4\" stroke=\"#e0b000\" stroke-dasharray=\"4 3\"/>\n",
            left - 10.0,
            width - left,
            y1 - y0
        ));
        o.push_str(&format!(
            "<text x=\"{:.0}\" y=\"{:.0}\" fill=\"#8a6d00\" font-style=\"italic\">repeats forever from here</text>\n",
            beliefs_x + 120.0,
            y0 + 16.0
        ));
    }
    // Lifelines and their heads.
    for (i, name) in lines.iter().enumerate() {
        let (fill, stroke) = if i >= told_at {
            ("#fbeedd", "#7a4b00")
        } else {
            ("#e8eef9", "#1f3b73")
        };
        o.push_str(&format!(
            "<rect x=\"{:.0}\" y=\"62\" width=\"{:.0}\" height=\"28\" rx=\"4\" fill=\"{fill}\" stroke=\"{stroke}\"/>\n",
            x(i) - col / 2.0 + 8.0,
            col - 16.0
        ));
        o.push_str(&format!(
            "<text x=\"{:.0}\" y=\"81\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\n",
            x(i),
            xml(&cut(name, 21))
        ));
        o.push_str(&format!(
            "<line x1=\"{:.0}\" y1=\"90\" x2=\"{:.0}\" y2=\"{bottom:.0}\" stroke=\"#9aa5b8\" stroke-dasharray=\"3 3\"/>\n",
            x(i),
            x(i)
        ));
    }
    o.push_str(&format!(
        "<text x=\"{beliefs_x:.0}\" y=\"81\" font-weight=\"bold\">beliefs</text>\n"
    ));
    let at = |name: &str| lines.iter().position(|l| l == name).unwrap_or(0);
    for (k, s) in cex.steps.iter().enumerate() {
        let y = top + row * k as f64 + 30.0;
        o.push_str(&format!(
            "<text x=\"8\" y=\"{:.0}\" fill=\"#888888\" font-size=\"10\">{}</text>\n",
            y + 4.0,
            k + 1
        ));
        let mover = match parse_move(s) {
            Move::Arrow(a, b) => {
                let (xa, xb) = (x(at(a)), x(at(b)));
                if (xa - xb).abs() < 1.0 {
                    // A process talking to itself (two threads of one plan): a loop.
                    o.push_str(&format!(
                        "<path d=\"M {xa:.0} {:.0} c 40 0 40 16 0 16\" fill=\"none\" stroke=\"#1f3b73\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
                        y - 8.0
                    ));
                } else {
                    o.push_str(&format!(
                        "<line x1=\"{xa:.0}\" y1=\"{y:.0}\" x2=\"{xb:.0}\" y2=\"{y:.0}\" stroke=\"#1f3b73\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
                    ));
                }
                o.push_str(&format!(
                    "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"#1f3b73\">{}</text>\n",
                    (xa + xb) / 2.0 + if (xa - xb).abs() < 1.0 { 48.0 } else { 0.0 },
                    y - 6.0,
                    xml(&cut(&s.event, LABEL))
                ));
                b
            }
            Move::Mark(a) => {
                let xa = x(at(a));
                o.push_str(&format!(
                    "<circle cx=\"{xa:.0}\" cy=\"{y:.0}\" r=\"5\" fill=\"#ffffff\" stroke=\"#1f3b73\" stroke-width=\"1.5\"/>\n"
                ));
                o.push_str(&format!(
                    "<text x=\"{:.0}\" y=\"{:.0}\" fill=\"#1f3b73\">{}</text>\n",
                    xa + 10.0,
                    y - 6.0,
                    xml(&cut(&s.event, LABEL))
                ));
                a
            }
        };
        // Tells: a dashed arrow from the process that moved to the agent told.
        for b in &s.beliefs_added {
            if let Some((agent, atom)) = told(b) {
                let (xa, xt) = (x(at(mover)), x(at(&format!("agent {agent}"))));
                o.push_str(&format!(
                    "<line x1=\"{xa:.0}\" y1=\"{:.0}\" x2=\"{xt:.0}\" y2=\"{:.0}\" stroke=\"#7a4b00\" stroke-dasharray=\"6 3\" marker-end=\"url(#tell)\"/>\n",
                    y + 12.0,
                    y + 12.0
                ));
                o.push_str(&format!(
                    "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"#7a4b00\" font-size=\"11\">tell {}</text>\n",
                    (xa + xt) / 2.0,
                    y + 24.0,
                    xml(&cut(atom, LABEL))
                ));
            }
        }
        // Believe and forget: marks in the beliefs column.
        let changes: Vec<String> = s
            .beliefs_added
            .iter()
            .map(|b| format!("+{b}"))
            .chain(s.beliefs_removed.iter().map(|b| format!("−{b}")))
            .collect();
        let mut shown: Vec<String> = changes.iter().take(BELIEFS).cloned().collect();
        if changes.len() > BELIEFS {
            shown.push(format!("… and {} more", changes.len() - BELIEFS));
        }
        if !shown.is_empty() {
            o.push_str(&format!(
                "<text x=\"{beliefs_x:.0}\" y=\"{:.0}\" fill=\"#1b5e20\">{}</text>\n",
                y + 4.0,
                xml(&cut(&shown.join("  "), 60))
            ));
        }
    }
    // The end: the state the path reaches, across every line.
    let y = top + row * cex.steps.len() as f64 + 30.0;
    let deadlock = cex.conclusion.starts_with("deadlock");
    let colour = if deadlock { "#b00020" } else { "#8a6d00" };
    o.push_str(&format!(
        "<line x1=\"{:.0}\" y1=\"{y:.0}\" x2=\"{:.0}\" y2=\"{y:.0}\" stroke=\"{colour}\" stroke-width=\"4\"/>\n",
        left,
        beliefs_x - 10.0
    ));
    // At a deadlock, each blocked process: a cross on its lifeline and what it waits for, in
    // a box under it (the circular wait of the philosophers reads across the row).
    let waiting: Vec<(usize, &str)> = cex
        .blocked
        .iter()
        .map(|b| {
            let (who, what) = blocked(b);
            (at(who), what)
        })
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let mine: Vec<&str> = waiting
            .iter()
            .filter(|(k, _)| *k == i)
            .map(|(_, w)| *w)
            .collect();
        if deadlock && (cex.blocked.is_empty() || !mine.is_empty()) {
            o.push_str(&format!(
                "<path class=\"blocked\" d=\"M {:.0} {:.0} l 12 12 m 0 -12 l -12 12\" stroke=\"{colour}\" stroke-width=\"2.5\"/>\n",
                x(i) - 6.0,
                y + 8.0
            ));
        }
        if mine.is_empty() {
            continue;
        }
        let text: Vec<String> = wrap(&format!("waits to {}", mine.join(", ")), 22)
            .into_iter()
            .take(2)
            .collect();
        o.push_str(&format!(
            "<g class=\"waits\" data-process=\"{}\"><rect x=\"{:.0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"{:.0}\" rx=\"4\" fill=\"#fde7ea\" stroke=\"{colour}\"/>",
            xml(line),
            x(i) - col / 2.0 + 8.0,
            y + 24.0,
            col - 16.0,
            8.0 + 14.0 * text.len() as f64
        ));
        for (k, t) in text.iter().enumerate() {
            o.push_str(&format!(
                "<text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"{colour}\" font-size=\"11\">{}</text>",
                x(i),
                y + 37.0 + 14.0 * k as f64,
                xml(t)
            ));
        }
        o.push_str("</g>\n");
    }
    for (k, line) in conclusion.iter().enumerate() {
        o.push_str(&format!(
            "<text class=\"conclusion\" x=\"{left}\" y=\"{:.0}\" fill=\"{colour}\" font-weight=\"bold\">{}</text>\n",
            y + 40.0 + waits + 17.0 * k as f64,
            xml(line)
        ));
    }
    o.push_str("</g>\n</svg>\n");
    o
}

/// The state path of a counterexample as a Graphviz digraph: `s0 → s1 → …` labelled with each
/// step's event and belief changes, the lasso's edge back to where it repeats, and the last
/// state labelled with what is wrong there.
pub fn dot(t: &Theorem, cex: &Counterexample) -> String {
    let q = |s: &str| {
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace(['\n', '\r'], " ")
    };
    let mut o = format!(
        "digraph \"{}\" {{\n  label=\"{}: {} refuted\";\n  labelloc=t;\n  rankdir=TB;\n  node [shape=circle, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n  s0 [label=\"scene\", shape=doublecircle];\n",
        q(&format!("{}.{}", t.network, t.name)),
        q(&t.network),
        q(&t.name)
    );
    for (k, s) in cex.steps.iter().enumerate() {
        let changes: Vec<String> = s
            .beliefs_added
            .iter()
            .map(|b| format!("+{b}"))
            .chain(s.beliefs_removed.iter().map(|b| format!("-{b}")))
            .collect();
        let mut label = q(&format!("{}: {}", s.process, s.event));
        if !changes.is_empty() {
            label.push_str("\\n");
            label.push_str(&q(&changes.join(" ")));
        }
        let n = k + 1;
        o.push_str(&format!(
            "  s{n} [label=\"{n}\"];\n  s{k} -> s{n} [label=\"{label}\"];\n"
        ));
    }
    let last = cex.steps.len();
    if let Some(from) = cex.cycle_from {
        o.push_str(&format!(
            "  s{last} -> s{from} [style=dashed, label=\"repeats\"];\n"
        ));
    }
    o.push_str(&format!(
        "  end [shape=box, color=red, label=\"{}\"];\n  s{last} -> end [style=dotted, arrowhead=none];\n}}\n",
        q(&cex.conclusion)
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use hilbert_prover::obligations::Status;

    fn theorem() -> (Theorem, Counterexample) {
        let cex = Counterexample {
            steps: vec![
                CexStep {
                    process: "Deliver/Van → Deliver".into(),
                    event: "door.7".into(),
                    beliefs_added: vec!["delivered(7)".into(), "B(Client) delivered(7)".into()],
                    beliefs_removed: vec![],
                    sites: vec![],
                },
                CexStep {
                    process: "Deliver".into(),
                    event: "τ".into(),
                    beliefs_added: vec![],
                    beliefs_removed: vec!["delivered(7)".into()],
                    sites: vec![],
                },
            ],
            cycle_from: Some(1),
            blocked: vec![],
            conclusion: "the plan can cycle forever without <done> & \u{1b}[31m".into(),
        };
        let t = Theorem {
            network: "Courier.Notify".into(),
            name: "Deliver_live_Done".into(),
            statement: "inevitable(scene(call(Deliver), empty), done(1))".into(),
            status: Status::Refuted(cex.clone()),
            states: 3,
            transitions: 2,
        };
        (t, cex)
    }

    #[test]
    fn the_chart_has_a_lifeline_per_process_and_told_agent_and_escapes_its_text() {
        let (t, cex) = theorem();
        let s = svg(&t, &cex);
        for head in [">Deliver/Van<", ">Deliver<", ">agent Client<"] {
            assert!(s.contains(head), "{head}: {s}");
        }
        assert!(s.contains(">door.7<"));
        assert!(s.contains(">tell delivered(7)<"));
        assert!(s.contains("+delivered(7)"));
        assert!(s.contains("−delivered(7)"));
        assert!(s.contains("repeats forever"));
        // Escaped, and no control character left for an XML parser to refuse.
        assert!(s.contains("&lt;done&gt; &amp; U+001B[31m"));
        assert!(!s.chars().any(|c| (c as u32) < 0x20 && c != '\n'));
        assert_eq!(file_stem(&t), "Courier.Notify.Deliver_live_Done");
    }

    #[test]
    fn the_dot_listing_is_the_state_path_with_the_lasso_edge() {
        let (t, cex) = theorem();
        let d = dot(&t, &cex);
        assert!(d.starts_with("digraph \"Courier.Notify.Deliver_live_Done\" {"));
        assert!(d.contains("s0 -> s1 [label=\"Deliver/Van → Deliver: door.7\\n+delivered(7) +B(Client) delivered(7)\"]"), "{d}");
        assert!(d.contains("s2 -> s1 [style=dashed"));
        assert!(d.trim_end().ends_with('}'));
    }
}
