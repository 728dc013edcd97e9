//! A delta-debugging shrinker over a generated project's structure: it removes members, plans,
//! handlers and parameters, and replaces processes by `SKIP`, `STOP` or one of their parts,
//! keeping each cut that the checker accepts and that still shows the disagreement.

use crate::generate::{GP, Project};

/// Every project one cut smaller than `p`.
pub fn candidates(p: &Project) -> Vec<Project> {
    let mut out = Vec::new();
    // A whole agent and its plan file.
    if p.agents.len() > 1 {
        for i in 0..p.agents.len() {
            let mut q = p.clone();
            let name = q.agents.remove(i).name;
            q.files
                .retain(|(_, plans)| plans.first().is_none_or(|x| x.agent != name));
            q.params.retain(|x| !x.starts_with(&format!("{name}.")));
            // What the others said of it or told it goes too.
            let told = format!("tell {name} ");
            let test = format!("B({name})");
            for a in &mut q.agents {
                a.members.retain(|m| !m.contains(&test));
            }
            for (_, plans) in &mut q.files {
                for plan in plans {
                    untell(&mut plan.body, &told);
                    for (_, h) in &mut plan.handlers {
                        untell(h, &told);
                    }
                }
            }
            out.push(q);
        }
    }
    // A desire and every rule about it.
    for (a, agent) in p.agents.iter().enumerate() {
        for m in &agent.members {
            let Some(rest) = m.strip_prefix("desire ") else {
                continue;
            };
            let d = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            let mut q = p.clone();
            q.agents[a].members.retain(|x| {
                !x.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == d)
            });
            out.push(q);
        }
    }
    for i in 0..p.params.len() {
        let mut q = p.clone();
        q.params.remove(i);
        out.push(q);
    }
    for (a, agent) in p.agents.iter().enumerate() {
        for m in 0..agent.members.len() {
            let mut q = p.clone();
            q.agents[a].members.remove(m);
            out.push(q);
        }
    }
    for (f, (_, plans)) in p.files.iter().enumerate() {
        for (i, plan) in plans.iter().enumerate() {
            if i > 0 {
                let mut q = p.clone();
                q.files[f].1.remove(i);
                out.push(q);
            }
            for h in 0..plan.handlers.len() {
                let mut q = p.clone();
                q.files[f].1[i].handlers.remove(h);
                out.push(q);
            }
            for c in 0..plan.chans.len() {
                let mut q = p.clone();
                q.files[f].1[i].chans.remove(c);
                out.push(q);
            }
            for smaller in proc_cuts(&plan.body) {
                let mut q = p.clone();
                q.files[f].1[i].body = smaller;
                out.push(q);
            }
            for (h, (_, body)) in plan.handlers.iter().enumerate() {
                for smaller in proc_cuts(body) {
                    let mut q = p.clone();
                    q.files[f].1[i].handlers[h].1 = smaller;
                    out.push(q);
                }
            }
        }
    }
    out
}

/// Replaces every leaf that starts with `told` (a tell to a removed agent) by `SKIP`.
fn untell(p: &mut GP, told: &str) {
    match p {
        GP::Leaf(s) => {
            if s.starts_with(told) {
                *s = "SKIP".into();
            }
        }
        GP::Seq(xs) | GP::Par(xs) | GP::Choice(xs) => xs.iter_mut().for_each(|x| untell(x, told)),
        GP::Intr(a, b) => {
            untell(a, told);
            untell(b, told);
        }
        GP::Label(_, b) => untell(b, told),
        GP::Match(_, arms, o) => {
            arms.iter_mut().for_each(|(_, b)| untell(b, told));
            if let Some(o) = o {
                untell(o, told);
            }
        }
    }
}

fn size(p: &GP) -> usize {
    match p {
        GP::Leaf(_) => 1,
        GP::Seq(xs) | GP::Par(xs) | GP::Choice(xs) => 1 + xs.iter().map(size).sum::<usize>(),
        GP::Intr(a, b) => 1 + size(a) + size(b),
        GP::Label(_, b) => 1 + size(b),
        GP::Match(_, arms, o) => {
            1 + arms.iter().map(|(_, b)| size(b)).sum::<usize>() + o.as_ref().map_or(0, |o| size(o))
        }
    }
}

/// Every process one cut smaller than `p`.
fn proc_cuts(p: &GP) -> Vec<GP> {
    let mut out = Vec::new();
    let skip = GP::Leaf("SKIP".into());
    let stop = GP::Leaf("STOP".into());
    if *p != skip {
        out.push(skip.clone());
    }
    if *p != stop && *p != skip {
        out.push(stop);
    }
    let rebuild = |i: usize, x: GP, xs: &[GP]| -> Vec<GP> {
        let mut v = xs.to_vec();
        v[i] = x;
        v
    };
    match p {
        GP::Leaf(_) => {}
        GP::Seq(xs) | GP::Par(xs) | GP::Choice(xs) => {
            let make = |v: Vec<GP>| match p {
                GP::Seq(_) => GP::Seq(v),
                GP::Par(_) => GP::Par(v),
                _ => GP::Choice(v),
            };
            for (i, x) in xs.iter().enumerate() {
                out.push(x.clone());
                if xs.len() > 2 {
                    let mut v = xs.clone();
                    v.remove(i);
                    out.push(make(v));
                } else {
                    let mut v = xs.clone();
                    v.remove(i);
                    out.push(v.pop().unwrap_or(skip.clone()));
                }
                for y in proc_cuts(x) {
                    out.push(make(rebuild(i, y, xs)));
                }
            }
        }
        GP::Intr(a, b) => {
            out.push((**a).clone());
            out.push((**b).clone());
            for y in proc_cuts(a) {
                out.push(GP::Intr(Box::new(y), b.clone()));
            }
            for y in proc_cuts(b) {
                out.push(GP::Intr(a.clone(), Box::new(y)));
            }
        }
        GP::Label(l, b) => {
            for y in proc_cuts(b) {
                out.push(GP::Label(l.clone(), Box::new(y)));
            }
        }
        GP::Match(e, arms, o) => {
            for (i, (_, b)) in arms.iter().enumerate() {
                out.push(b.clone());
                let mut v = arms.clone();
                v.remove(i);
                if !v.is_empty() || o.is_some() {
                    out.push(GP::Match(e.clone(), v, o.clone()));
                }
                for y in proc_cuts(b) {
                    let mut v = arms.clone();
                    v[i].1 = y;
                    out.push(GP::Match(e.clone(), v, o.clone()));
                }
            }
            if let Some(ob) = o {
                out.push((**ob).clone());
                for y in proc_cuts(ob) {
                    out.push(GP::Match(e.clone(), arms.clone(), Some(Box::new(y))));
                }
            }
        }
    }
    out.retain(|x| size(x) < size(p) || (size(x) == size(p) && x != p));
    out
}

/// Shrinks `p` while `keep` holds, cut by cut, to a project no single cut keeps; at most
/// `budget` candidates are tried.
pub fn shrink(p: &Project, keep: &mut dyn FnMut(&Project) -> bool, budget: usize) -> Project {
    let mut cur = p.clone();
    let mut tried = 0;
    'outer: loop {
        for q in candidates(&cur) {
            tried += 1;
            if tried > budget {
                break 'outer;
            }
            if keep(&q) {
                cur = q;
                continue 'outer;
            }
        }
        break;
    }
    cur
}
