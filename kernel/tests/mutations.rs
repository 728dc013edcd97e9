//! Attacks on the kernel. Every certificate the example projects produce is mutated in many ways,
//! and every mutant must be refused: the certificate `invalid`, or not admitted.
//!
//! Semantic mutations decode the body, change the [`Body`] and encode it again with
//! [`cert::encode`], so the checksum is right and the kernel must find the problem itself; where
//! the mutation touches the IR, the IR digest is recomputed too. Mutations about the encoding
//! change raw bytes.
//!
//! **The excusal rule.** A mutant the kernel admits is a failure *unless* an independent check
//! shows the mutated claim is still true: the frontend's reference explorer, searching every
//! state of the mutated IR's network without looking at a witness, finds every obligation the
//! kernel derives true ([`common::claim_holds`]). Such mutants are counted, and the count must
//! stay small. Encoding mutants are never excused.

mod common;

use common::{Built, certificates, claim_holds};
use hilbert_certificates::cert::{self, Body, Counts, HEADER_LEN, MAGIC, Witness};
use hilbert_certificates::ir::{CompareOp, Cond, CondTerm, Literal, Node};
use hilbert_kernel::check::{Report, Verdict, check};
use hilbert_kernel::semantics::Semantics;
use hilbert_prover::explore::{Limits, StateId, reference};
use std::collections::{BTreeMap, BTreeSet};

/// What a mutant must get.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// An invalid certificate, the reason containing this text.
    Invalid(&'static str),
    /// Not admitted; with a rule, some obligation refused by exactly that rule.
    Refused(Option<&'static str>),
}

/// A kind of mutation: its name, what it must get, and the mutants it makes of one certificate
/// (none when it does not apply).
struct Mutation {
    name: &'static str,
    want: Want,
    make: fn(&Built, &Body) -> Vec<Vec<u8>>,
}

fn body(b: &Built) -> Body {
    cert::decode(&b.bytes).expect("the frontend's certificates decode")
}

/// The certificate bytes with the trailer recomputed.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.truncate(bytes.len() - 32);
    let sum = cert::sha256(&bytes);
    bytes.extend_from_slice(&sum);
    bytes
}

/// Encodes a body whose IR changed, with the IR's digest recomputed.
fn with_ir(mut body: Body) -> Vec<u8> {
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
    cert::encode(&body)
}

fn one(body: Body) -> Vec<Vec<u8>> {
    vec![cert::encode(&body)]
}

/// Index of the first witness of the obligation kind `pick` selects, among the theorems the
/// frontend proved (mutating a witness that is already refused proves nothing).
fn proved_witness(b: &Built, body: &Body, pick: fn(&Witness) -> bool) -> Option<usize> {
    body.witnesses.iter().position(|w| {
        pick(w)
            && b.theorems
                .iter()
                .any(|(n, proved)| *proved && n == w.obligation())
    })
}

fn is_ranking(w: &Witness) -> bool {
    matches!(w, Witness::Ranking { .. })
}

/// A release witness of a `_released_` theorem (its starts: the states believing the atom).
fn is_release(w: &Witness) -> bool {
    matches!(w, Witness::Release { obligation, .. } if obligation.contains("_released_"))
}

/// A release witness of an `_abortable` theorem (its starts: every state).
fn is_abortable(w: &Witness) -> bool {
    matches!(w, Witness::Release { obligation, .. } if obligation.ends_with("_abortable"))
}

fn is_stoppable(w: &Witness) -> bool {
    matches!(w, Witness::Stoppable { .. })
}

/// A stoppable witness changed: its stop exploration (`after` false) or its resume one, as its
/// declared size and its ranks.
fn stoppable_mutant(
    b: &Built,
    body: &Body,
    after: bool,
    change: fn(&mut Counts, &mut Vec<u64>) -> bool,
) -> Vec<Vec<u8>> {
    let Some(w) = proved_witness(b, body, is_stoppable) else {
        return Vec::new();
    };
    let mut body = body.clone();
    if let Witness::Stoppable {
        stop,
        stop_ranks,
        after: resumed,
        after_ranks,
        ..
    } = &mut body.witnesses[w]
    {
        let (counts, ranks) = match after {
            false => (stop, stop_ranks),
            true => (resumed, after_ranks),
        };
        if !change(counts, ranks) {
            return Vec::new();
        }
    }
    one(body)
}

/// A release witness (of the kind `pick` picks) changed: its declared size and its ranks.
fn release_mutant(
    b: &Built,
    body: &Body,
    pick: fn(&Witness) -> bool,
    change: fn(&mut Counts, &mut Vec<u64>) -> bool,
) -> Vec<Vec<u8>> {
    let Some(w) = proved_witness(b, body, pick) else {
        return Vec::new();
    };
    let mut body = body.clone();
    if let Witness::Release { counts, ranks, .. } = &mut body.witnesses[w]
        && !change(counts, ranks)
    {
        return Vec::new();
    }
    one(body)
}

/// The scene's declared size changed, with every rank table of the scene changed alike.
fn scene_mutant(body: &Body, change: fn(&mut Counts, &mut Vec<u64>)) -> Vec<Vec<u8>> {
    let mut body = body.clone();
    let scene = body.scene;
    if scene.states < 2 {
        return Vec::new();
    }
    change(&mut body.scene, &mut Vec::new());
    for w in &mut body.witnesses {
        if let Witness::Ranking { ranks, .. } = w {
            change(&mut { scene }, ranks);
        }
    }
    one(body)
}

/// The network's edges as the reference explorer finds them; its states are in the
/// certificate's order (both are breadth-first from the initial state).
fn edges(body: &Body) -> Vec<Vec<usize>> {
    let net = &body.ir.networks[body.network as usize];
    let agent = &body.ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let (graph, _) = reference::explore(&sem, vec![sem.initial()], Limits::default(), false);
    (0..graph.len() as u32)
        .map(|s| graph.succ(StateId(s)).map(|e| e.to.0 as usize).collect())
        .collect()
}

/// Changes a literal: integers by one, booleans negated, strings extended.
fn bump(l: &mut Literal) {
    match l {
        Literal::Int(n) => *n = n.wrapping_add(1),
        Literal::Bool(b) => *b = !*b,
        Literal::Str(s) => s.push('x'),
    }
}

fn first_literal(node: &mut Node) -> Option<&mut Literal> {
    use hilbert_certificates::ir::Expr;
    fn in_expr(e: &mut Expr) -> Option<&mut Literal> {
        match e {
            Expr::Literal(l) => Some(l),
            Expr::Slot(_) => None,
            Expr::Neg(a) | Expr::Not(a) => in_expr(a),
            Expr::Arith(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
                if matches!(**a, Expr::Slot(_)) {
                    in_expr(b)
                } else {
                    in_expr(a)
                }
            }
            Expr::Chain(a, rest) => {
                in_expr(a).or_else(|| rest.iter_mut().find_map(|(_, b)| in_expr(b)))
            }
        }
    }
    match node {
        Node::Believe(a) | Node::Forget(a) => a.args.iter_mut().find_map(in_expr),
        Node::Tell { atom, .. } => atom.args.iter_mut().find_map(in_expr),
        Node::Send { value, .. } => in_expr(value),
        Node::Match { arms, .. } => arms.first_mut().map(|(l, _)| l),
        _ => None,
    }
}

/// The desires the certificate's network serves (those it has obligations about).
fn served(body: &Body) -> Vec<usize> {
    let net = &body.ir.networks[body.network as usize];
    let agent = &body.ir.agents[net.agent.0 as usize];
    let Some(binding) = agent
        .plans
        .iter()
        .position(|p| p.network == Some(body.network))
    else {
        return Vec::new();
    };
    (0..agent.desires.len())
        .filter(|&d| agent.desires[d].reachable_by.contains(&(binding as u32)))
        .collect()
}

/// The nodes of the certificate's network that are tells whose feasibility the build proved.
fn proved_tells(b: &Built, body: &Body) -> Vec<usize> {
    let nodes = &body.ir.networks[body.network as usize].nodes;
    (0..nodes.len())
        .filter(|&i| match &nodes[i] {
            Node::Tell { index, .. } => b
                .theorems
                .iter()
                .any(|(t, p)| *p && t.ends_with(&format!("_tell_feasible_{index}"))),
            _ => false,
        })
        .collect()
}

fn mutations() -> Vec<Mutation> {
    vec![
        // ------------------------------------------------------------- the encoding
        Mutation {
            name: "truncate to fewer bytes than a header",
            want: Want::Invalid("bad magic or too short"),
            make: |b, _| vec![b.bytes[..10].to_vec(), Vec::new()],
        },
        Mutation {
            name: "truncate by one byte or by half",
            want: Want::Invalid(""),
            make: |b, _| {
                vec![
                    b.bytes[..b.bytes.len() - 1].to_vec(),
                    b.bytes[..b.bytes.len() / 2].to_vec(),
                ]
            },
        },
        Mutation {
            name: "truncate the body, checksum recomputed",
            want: Want::Invalid("does not decode"),
            make: |b, _| {
                let mut bytes = b.bytes[..b.bytes.len() - 40].to_vec();
                let sum = cert::sha256(&bytes);
                bytes.extend_from_slice(&sum);
                vec![bytes]
            },
        },
        Mutation {
            name: "append a byte",
            want: Want::Invalid("SHA-256 trailer"),
            make: |b, _| {
                let mut bytes = b.bytes.clone();
                bytes.push(0);
                vec![bytes]
            },
        },
        Mutation {
            name: "append bytes to the body, checksum recomputed",
            want: Want::Invalid("canonical"),
            make: |b, _| {
                let n = b.bytes.len() - 32;
                let mut bytes = b.bytes[..n].to_vec();
                bytes.extend_from_slice(&[0, 0, 0]);
                let sum = cert::sha256(&bytes);
                bytes.extend_from_slice(&sum);
                vec![bytes]
            },
        },
        Mutation {
            name: "flip a byte of the trailer",
            want: Want::Invalid("SHA-256 trailer"),
            make: |b, _| {
                let n = b.bytes.len();
                [n - 32, n - 1]
                    .into_iter()
                    .map(|i| {
                        let mut bytes = b.bytes.clone();
                        bytes[i] ^= 0x01;
                        bytes
                    })
                    .collect()
            },
        },
        Mutation {
            name: "flip a bit of the body, checksum left alone",
            want: Want::Invalid("SHA-256 trailer"),
            make: |b, _| {
                let mut bytes = b.bytes.clone();
                bytes[MAGIC.len() + HEADER_LEN + 3] ^= 0x10;
                vec![bytes]
            },
        },
        Mutation {
            name: "change the magic",
            want: Want::Invalid("bad magic"),
            make: |b, _| {
                let mut bytes = b.bytes.clone();
                bytes[0] = b'X';
                vec![reseal(bytes)]
            },
        },
        Mutation {
            name: "change the format version (major, minor)",
            want: Want::Invalid("this kernel implements format 3.0"),
            make: |b, _| {
                // Format 2 (a state table), format 1, a later major, a later minor.
                [(8usize, 2u8), (8, 1), (8, 4), (10, 1), (9, 1)]
                    .into_iter()
                    .map(|(i, v)| {
                        let mut bytes = b.bytes.clone();
                        bytes[i] = v;
                        reseal(bytes)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "change the semantics version",
            want: Want::Invalid("semantics 1"),
            make: |b, _| {
                // An older semantics (1: commands landed after their issuer's whole macro-step).
                let mut bytes = b.bytes.clone();
                bytes[12] = 1;
                vec![reseal(bytes)]
            },
        },
        Mutation {
            name: "set a reserved header byte",
            want: Want::Invalid("reserved header byte"),
            make: |b, _| {
                (14..MAGIC.len() + HEADER_LEN)
                    .map(|i| {
                        let mut bytes = b.bytes.clone();
                        bytes[i] = 0x01;
                        reseal(bytes)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "encode a length with an overlong varint",
            want: Want::Invalid("canonical"),
            make: |b, _| {
                // The body begins with the tool's name: its length, one varint byte (< 128).
                let at = MAGIC.len() + HEADER_LEN;
                let len = b.bytes[at];
                assert!(len < 0x80);
                let mut bytes = b.bytes[..at].to_vec();
                bytes.extend_from_slice(&[len | 0x80, 0x00]);
                bytes.extend_from_slice(&b.bytes[at + 1..]);
                vec![reseal(bytes)]
            },
        },
        Mutation {
            name: "replace the body by bytes that are no body",
            want: Want::Invalid("does not decode"),
            make: |b, _| {
                let mut bytes = b.bytes[..MAGIC.len() + HEADER_LEN].to_vec();
                bytes.extend_from_slice(&[0xff; 12]);
                bytes.extend_from_slice(&[0; 32]);
                vec![reseal(bytes)]
            },
        },
        // ------------------------------------------------------------- digests
        Mutation {
            name: "change a source digest",
            want: Want::Invalid("source"),
            make: |_, body| {
                let mut body = body.clone();
                body.sources[0].sha256[0] ^= 0x01;
                one(body)
            },
        },
        Mutation {
            name: "drop a source",
            want: Want::Invalid("source"),
            make: |_, body| {
                let mut body = body.clone();
                body.sources.pop();
                one(body)
            },
        },
        Mutation {
            name: "change the IR digest",
            want: Want::Invalid("the IR's digest does not match"),
            make: |_, body| {
                let mut body = body.clone();
                body.ir_sha256[31] ^= 0x80;
                one(body)
            },
        },
        Mutation {
            name: "change the IR, digest left alone",
            want: Want::Invalid("the IR's digest does not match"),
            make: |_, body| {
                let mut body = body.clone();
                body.ir.networks[body.network as usize]
                    .nodes
                    .push(Node::Skip);
                one(body)
            },
        },
        // ------------------------------------------------------------- the declared sizes
        Mutation {
            name: "declare one state fewer, its last rank dropped",
            want: Want::Refused(Some("states.count")),
            make: |_, body| {
                scene_mutant(body, |c, ranks| {
                    c.states -= 1;
                    ranks.pop();
                })
            },
        },
        Mutation {
            // A state no step reaches (one believing every atom, say) can only be declared.
            name: "declare one state more, ranked 0",
            want: Want::Refused(Some("states.count")),
            make: |_, body| {
                scene_mutant(body, |c, ranks| {
                    c.states += 1;
                    ranks.push(0);
                })
            },
        },
        Mutation {
            name: "declare one step fewer and one more",
            want: Want::Refused(Some("states.count")),
            make: |_, body| {
                let t = body.scene.transitions;
                [t.checked_sub(1), Some(t + 1)]
                    .into_iter()
                    .flatten()
                    .map(|transitions| {
                        let mut body = body.clone();
                        body.scene.transitions = transitions;
                        cert::encode(&body)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "declare a scene of one state",
            want: Want::Refused(Some("states.count")),
            make: |_, body| {
                if body.scene.states < 2 {
                    return Vec::new();
                }
                let mut body = body.clone();
                body.scene = Counts {
                    states: 1,
                    transitions: 0,
                };
                one(body)
            },
        },
        // ------------------------------------------------------------- ranks
        Mutation {
            name: "change a rank (the largest, to 0)",
            want: Want::Refused(Some("ranking.decreases")),
            make: |b, body| {
                let Some(w) = proved_witness(b, body, is_ranking) else {
                    return Vec::new();
                };
                let mut body = body.clone();
                let Witness::Ranking { ranks, .. } = &mut body.witnesses[w] else {
                    unreachable!()
                };
                let (i, &max) = ranks.iter().enumerate().max_by_key(|(_, r)| **r).unwrap();
                if max < 2 {
                    return Vec::new();
                }
                ranks[i] = 0;
                one(body)
            },
        },
        Mutation {
            name: "lower a rank to equal its successor's",
            want: Want::Refused(Some("ranking.decreases")),
            make: |b, body| {
                let Some(w) = proved_witness(b, body, is_ranking) else {
                    return Vec::new();
                };
                let succ = edges(body);
                let mut body = body.clone();
                let Witness::Ranking { ranks, .. } = &mut body.witnesses[w] else {
                    unreachable!()
                };
                let Some((i, j)) = (0..ranks.len())
                    .flat_map(|i| succ[i].iter().map(move |&j| (i, j)))
                    // Ranked states only: `u64::MAX` claims nothing (states after the goal).
                    .find(|&(i, j)| {
                        ranks[i] > 0 && ranks[j] > 0 && ranks[i] != ranks[j] && ranks[i] < u64::MAX
                    })
                else {
                    return Vec::new();
                };
                ranks[i] = ranks[j];
                one(body)
            },
        },
        Mutation {
            name: "set every rank to 0",
            want: Want::Refused(None),
            make: |b, body| {
                let Some(w) = proved_witness(b, body, is_ranking) else {
                    return Vec::new();
                };
                let mut body = body.clone();
                let Witness::Ranking { ranks, .. } = &mut body.witnesses[w] else {
                    unreachable!()
                };
                ranks.iter_mut().for_each(|r| *r = 0);
                one(body)
            },
        },
        Mutation {
            name: "give one rank too few",
            want: Want::Refused(Some("ranking.length")),
            make: |b, body| {
                let Some(w) = proved_witness(b, body, is_ranking) else {
                    return Vec::new();
                };
                let mut body = body.clone();
                let Witness::Ranking { ranks, .. } = &mut body.witnesses[w] else {
                    unreachable!()
                };
                ranks.pop();
                one(body)
            },
        },
        // ------------------------------------------------------------- witnesses
        Mutation {
            name: "reorder the witnesses",
            want: Want::Refused(Some("obligations.order")),
            make: |_, body| {
                if body.witnesses.len() < 2 {
                    return Vec::new();
                }
                let mut body = body.clone();
                body.witnesses.swap(0, 1);
                one(body)
            },
        },
        Mutation {
            name: "drop a witness",
            want: Want::Refused(Some("obligations.missing")),
            make: |_, body| {
                let mut body = body.clone();
                body.witnesses.pop();
                one(body)
            },
        },
        Mutation {
            name: "duplicate a witness",
            want: Want::Refused(Some("obligations.extra")),
            make: |_, body| {
                let mut body = body.clone();
                let last = body.witnesses.last().cloned().expect("a witness");
                body.witnesses.push(last);
                one(body)
            },
        },
        Mutation {
            name: "relabel a witness's obligation",
            want: Want::Refused(Some("obligations.order")),
            make: |_, body| {
                let mut body = body.clone();
                match &mut body.witnesses[0] {
                    Witness::Invariant { obligation }
                    | Witness::Ranking { obligation, .. }
                    | Witness::RankingExpr { obligation, .. }
                    | Witness::Release { obligation, .. }
                    | Witness::TellFeasible { obligation }
                    | Witness::Stoppable { obligation, .. }
                    | Witness::Frame { obligation } => obligation.push('x'),
                }
                one(body)
            },
        },
        Mutation {
            name: "lower a ranking expression's constant",
            want: Want::Refused(None),
            make: |_, body| {
                (0..body.witnesses.len())
                    .filter_map(|k| {
                        let mut body = body.clone();
                        let Witness::RankingExpr { expr, .. } = &mut body.witnesses[k] else {
                            return None;
                        };
                        // Every ranked state drops by the constant: some falls below zero.
                        expr.constant -= 1_000_000;
                        Some(cert::encode(&body))
                    })
                    .collect()
            },
        },
        Mutation {
            name: "negate a ranking expression's coefficient",
            want: Want::Refused(None),
            make: |_, body| {
                (0..body.witnesses.len())
                    .filter_map(|k| {
                        let mut body = body.clone();
                        let Witness::RankingExpr { expr, .. } = &mut body.witnesses[k] else {
                            return None;
                        };
                        let (_, c) = expr
                            .terms
                            .iter_mut()
                            .find(|(f, _)| matches!(f, cert::Feature::Slot { .. }))?;
                        *c = -*c;
                        Some(cert::encode(&body))
                    })
                    .collect()
            },
        },
        Mutation {
            name: "change a witness's kind",
            want: Want::Refused(Some("witness.kind")),
            make: |_, body| {
                (0..body.witnesses.len())
                    .map(|k| {
                        let mut body = body.clone();
                        let name = body.witnesses[k].obligation().to_string();
                        body.witnesses[k] = match body.witnesses[k] {
                            Witness::Invariant { .. } => Witness::TellFeasible { obligation: name },
                            Witness::TellFeasible { .. }
                            | Witness::Release { .. }
                            | Witness::Stoppable { .. }
                            | Witness::Frame { .. } => Witness::Invariant { obligation: name },
                            Witness::Ranking { .. } | Witness::RankingExpr { .. } => {
                                Witness::Release {
                                    obligation: name,
                                    counts: body.scene,
                                    ranks: Vec::new(),
                                }
                            }
                        };
                        cert::encode(&body)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "drop the frame witness",
            want: Want::Refused(Some("obligations.missing")),
            make: |_, body| {
                let mut body = body.clone();
                body.witnesses
                    .retain(|w| !matches!(w, Witness::Frame { .. }));
                one(body)
            },
        },
        Mutation {
            name: "relabel the frame witness as another network's",
            want: Want::Refused(Some("obligations.order")),
            make: |_, body| {
                let mut body = body.clone();
                for w in &mut body.witnesses {
                    if let Witness::Frame { obligation } = w {
                        *obligation = obligation.replace('.', ".Other");
                    }
                }
                one(body)
            },
        },
        Mutation {
            // A blind agent's desire persists while it believes it impossible (`docs/frames.md`
            // §1): what breaks the frame is a desire no explored world achieves.
            name: "make a served desire's goal one no world achieves",
            want: Want::Refused(Some("frame.D-desire")),
            make: |_, body| {
                let a = body.ir.networks[body.network as usize].agent.0 as usize;
                served(body)
                    .into_iter()
                    .map(|d| {
                        let mut body = body.clone();
                        body.ir.agents[a].desires[d].achieved =
                            vec![Cond::Not(Box::new(Cond::True))];
                        with_ir(body)
                    })
                    .collect()
            },
        },
        Mutation {
            // `never φ` proved: φ holds nowhere, so `always φ` fails at the start.
            name: "turn a proved `never φ` into `always φ`",
            want: Want::Refused(Some("assert.state")),
            make: |b, body| {
                use hilbert_certificates::ir::Property;
                let a = body.ir.networks[body.network as usize].agent.0 as usize;
                let asserts = &body.ir.agents[a].asserts;
                (0..asserts.len())
                    .filter(|&k| matches!(asserts[k].property, Property::Never(_)))
                    .filter(|&k| {
                        let name = format!("_assert_{}", asserts[k].name);
                        b.theorems.iter().any(|(n, p)| *p && n.ends_with(&name))
                    })
                    .map(|k| {
                        let mut body = body.clone();
                        let p = &mut body.ir.agents[a].asserts[k].property;
                        if let Property::Never(c) = p {
                            *p = Property::Always(c.clone());
                        }
                        with_ir(body)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "make an assertion read an agent parameter with no value",
            want: Want::Refused(Some("assert.parameters")),
            make: |_, body| {
                use hilbert_certificates::ir::{Property, Type};
                let a = body.ir.networks[body.network as usize].agent.0 as usize;
                if body.ir.agents[a].asserts.is_empty() {
                    return Vec::new();
                }
                let mut body = body.clone();
                let agent = &mut body.ir.agents[a];
                agent.params.push(("unset".into(), Type::Int));
                agent.args.push(None);
                let p = agent.params.len() as u32 - 1;
                agent.asserts[0].property = Property::Always(Cond::Compare(
                    CompareOp::Eq,
                    CondTerm::Param(p),
                    CondTerm::Literal(Literal::Int(0)),
                ));
                vec![with_ir(body)]
            },
        },
        Mutation {
            // Every ranked state at one rank: a cycle keeps it, and the processes that can move
            // in all those states move in it (or there is no cycle, and the claim is true).
            name: "flatten a proved weakly fair ranking to one rank",
            want: Want::Refused(Some("fair.helpful")),
            make: |b, body| {
                let derived = hilbert_kernel::check::obligations(&body.ir, body.network as usize)
                    .unwrap_or_default();
                let a = body.ir.networks[body.network as usize].agent.0 as usize;
                let agent = &body.ir.agents[a];
                let fair = |k: &hilbert_kernel::check::Kind| match k {
                    hilbert_kernel::check::Kind::Live(d) => agent.desires[*d].fair,
                    hilbert_kernel::check::Kind::Assert(i) => agent.asserts[*i].fair,
                    _ => false,
                };
                (derived.iter().enumerate())
                    .filter(|(_, (n, k))| fair(k) && b.theorems.iter().any(|(t, p)| *p && t == n))
                    .filter_map(|(i, _)| {
                        let mut body = body.clone();
                        let Witness::Ranking { ranks, .. } = &mut body.witnesses[i] else {
                            return None;
                        };
                        let before = ranks.clone();
                        ranks.iter_mut().filter(|r| **r != 0).for_each(|r| *r = 1);
                        (*ranks != before).then(|| cert::encode(&body))
                    })
                    .collect()
            },
        },
        Mutation {
            name: "add attention rules that flip between two attentions",
            want: Want::Refused(Some("frame.4")),
            make: |_, body| {
                let net = &body.ir.networks[body.network as usize];
                let a = net.agent.0 as usize;
                if body.ir.agents[a].attentions.len() < 2 {
                    return Vec::new();
                }
                let mut body = body.clone();
                let attends = &mut body.ir.agents[a].attends;
                attends.push((Cond::Attending(0), 1));
                attends.push((Cond::Attending(1), 0));
                vec![with_ir(body)]
            },
        },
        Mutation {
            name: "declare a release exploration empty",
            want: Want::Refused(Some("release.count")),
            make: |b, body| {
                release_mutant(b, body, is_release, |c, ranks| {
                    let was = *c != Counts::default();
                    *c = Counts::default();
                    ranks.clear();
                    was
                })
            },
        },
        Mutation {
            name: "declare one state fewer in a release exploration",
            want: Want::Refused(Some("release.count")),
            make: |b, body| {
                release_mutant(b, body, is_release, |c, ranks| {
                    c.states = c.states.saturating_sub(1);
                    ranks.pop().is_some()
                })
            },
        },
        Mutation {
            name: "declare one state fewer in an abortable exploration",
            want: Want::Refused(Some("release.count")),
            make: |b, body| {
                release_mutant(b, body, is_abortable, |c, ranks| {
                    c.states = c.states.saturating_sub(1);
                    ranks.pop().is_some()
                })
            },
        },
        Mutation {
            name: "declare one step more in a release exploration",
            want: Want::Refused(Some("release.count")),
            make: |b, body| {
                release_mutant(b, body, is_release, |c, _| {
                    c.transitions += 1;
                    true
                })
            },
        },
        Mutation {
            name: "declare one state fewer in a stoppable witness's stop exploration",
            want: Want::Refused(Some("stoppable.count")),
            make: |b, body| {
                stoppable_mutant(b, body, false, |c, ranks| {
                    c.states = c.states.saturating_sub(1);
                    ranks.pop().is_some()
                })
            },
        },
        Mutation {
            name: "declare one state more in a stoppable witness's resume exploration",
            want: Want::Refused(Some("resumable.count")),
            make: |b, body| {
                stoppable_mutant(b, body, true, |c, ranks| {
                    c.states += 1;
                    ranks.push(0);
                    true
                })
            },
        },
        Mutation {
            // The tells of the handlers that run after the commands are then not all known.
            name: "declare a stoppable witness's stop exploration empty",
            want: Want::Refused(Some("tell.handler")),
            make: |b, body| {
                stoppable_mutant(b, body, false, |c, ranks| {
                    let was = *c != Counts::default();
                    *c = Counts::default();
                    ranks.clear();
                    was
                })
            },
        },
        Mutation {
            name: "drop the first rank of a stoppable witness's resume exploration",
            want: Want::Refused(Some("ranking.length")),
            make: |b, body| {
                stoppable_mutant(b, body, true, |_, ranks| {
                    let some = !ranks.is_empty();
                    if some {
                        ranks.remove(0);
                    }
                    some
                })
            },
        },
        Mutation {
            name: "unrank a stoppable witness's resume exploration",
            want: Want::Refused(Some("ranking.start")),
            make: |b, body| {
                stoppable_mutant(b, body, true, |_, ranks| {
                    let ranked = ranks.iter().any(|r| *r != u64::MAX);
                    ranks.iter_mut().for_each(|r| *r = u64::MAX);
                    ranked
                })
            },
        },
        Mutation {
            name: "swap the last two ranks of a release witness",
            want: Want::Refused(None),
            make: |b, body| {
                release_mutant(b, body, is_release, |_, ranks| {
                    let n = ranks.len();
                    let differ = n >= 2 && ranks[n - 1] != ranks[n - 2];
                    if differ {
                        ranks.swap(n - 1, n - 2);
                    }
                    differ
                })
            },
        },
        Mutation {
            name: "set every release rank to 0",
            want: Want::Refused(Some("ranking.decreases")),
            make: |b, body| {
                let Some(w) = proved_witness(b, body, is_release) else {
                    return Vec::new();
                };
                let mut body = body.clone();
                if let Witness::Release { ranks, .. } = &mut body.witnesses[w] {
                    if ranks.iter().all(|r| *r < 2) {
                        return Vec::new();
                    }
                    ranks.iter_mut().for_each(|r| *r = 0);
                }
                one(body)
            },
        },
        // ------------------------------------------------------------- the IR (re-digested)
        Mutation {
            name: "change a literal of the network's code",
            want: Want::Refused(None),
            make: |_, body| {
                let net = body.network as usize;
                let mut out = Vec::new();
                for i in 0..body.ir.networks[net].nodes.len() {
                    let mut body = body.clone();
                    if let Some(l) = first_literal(&mut body.ir.networks[net].nodes[i]) {
                        bump(l);
                        out.push(with_ir(body));
                    }
                }
                out
            },
        },
        Mutation {
            name: "replace a node of the network's code by SKIP or STOP",
            want: Want::Refused(None),
            make: |_, body| {
                let net = body.network as usize;
                let mut out = Vec::new();
                for (i, node) in body.ir.networks[net].nodes.iter().enumerate() {
                    let replacement = match node {
                        Node::Believe(_) | Node::Forget(_) | Node::Tell { .. } => Node::Skip,
                        Node::Send { .. } | Node::Recv { .. } | Node::Skip => Node::Stop,
                        _ => continue,
                    };
                    let mut body = body.clone();
                    body.ir.networks[net].nodes[i] = replacement;
                    out.push(with_ir(body));
                }
                out
            },
        },
        Mutation {
            name: "make a desire's achieved condition false",
            want: Want::Refused(None),
            make: |_, body| {
                let net = &body.ir.networks[body.network as usize];
                let a = net.agent.0 as usize;
                served(body)
                    .into_iter()
                    .map(|d| {
                        let mut body = body.clone();
                        body.ir.agents[a].desires[d].achieved = vec![Cond::False];
                        with_ir(body)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "make a desire's achieved condition true (a weaker claim: excused if admitted)",
            want: Want::Refused(None),
            make: |_, body| {
                let net = &body.ir.networks[body.network as usize];
                let a = net.agent.0 as usize;
                served(body)
                    .into_iter()
                    .map(|d| {
                        let mut body = body.clone();
                        body.ir.agents[a].desires[d].achieved = vec![Cond::True];
                        with_ir(body)
                    })
                    .collect()
            },
        },
        Mutation {
            // The goal made `¬(param 0 = 0)`, which evaluation reads as true everywhere (a
            // parameter with no value decides nothing), with `params_used` left empty: the
            // kernel must see the parameter in the condition itself.
            name: "make a desire's goal read an agent parameter with no value, unsaid",
            want: Want::Refused(Some("live.parameters")),
            make: |_, body| {
                let net = &body.ir.networks[body.network as usize];
                let a = net.agent.0 as usize;
                served(body)
                    .into_iter()
                    .map(|d| {
                        let mut body = body.clone();
                        let desire = &mut body.ir.agents[a].desires[d];
                        desire.achieved = vec![Cond::Not(Box::new(Cond::Compare(
                            CompareOp::Eq,
                            CondTerm::Param(0),
                            CondTerm::Literal(Literal::Int(0)),
                        )))];
                        desire.params_used.clear();
                        with_ir(body)
                    })
                    .collect()
            },
        },
        Mutation {
            name: "rename the binding",
            want: Want::Refused(Some("obligations.order")),
            make: |_, body| {
                let n = body.network as usize;
                let mut out = Vec::new();
                let mut body = body.clone();
                // Only the first obligation (no deadlock) is named after the plan, not the
                // binding: rename the binding where it names the second.
                if body.witnesses.len() < 2
                    || !body.witnesses[1]
                        .obligation()
                        .starts_with(&body.ir.networks[n].binding)
                {
                    return out;
                }
                body.ir.networks[n].binding.push('x');
                out.push(with_ir(body));
                out
            },
        },
        Mutation {
            name: "stop a desire being served by the binding",
            want: Want::Refused(Some("obligations.extra")),
            make: |_, body| {
                let net = &body.ir.networks[body.network as usize];
                let a = net.agent.0 as usize;
                let mut body = body.clone();
                let mut changed = false;
                for d in &mut body.ir.agents[a].desires {
                    changed |= !d.reachable_by.is_empty();
                    d.reachable_by.clear();
                }
                if !changed {
                    return Vec::new();
                }
                vec![with_ir(body)]
            },
        },
        Mutation {
            name: "make a tell infeasible (the teller no longer holds the belief)",
            want: Want::Refused(Some("tell.feasible")),
            make: |b, body| {
                let n = body.network as usize;
                let mut out = Vec::new();
                for i in proved_tells(b, body) {
                    let mut m = body.clone();
                    if let Node::Tell {
                        own: own @ Some(_), ..
                    } = &mut m.ir.networks[n].nodes[i]
                    {
                        *own = None;
                        out.push(with_ir(m));
                    }
                }
                out
            },
        },
        Mutation {
            // `on stop`: an `on abort` handler would add the abortable obligation as well.
            name: "make a proved tell's code also a plan's `on stop` handler",
            want: Want::Refused(Some("tell.handler")),
            make: |b, body| {
                let n = body.network as usize;
                let mut out = Vec::new();
                for i in proved_tells(b, body) {
                    let mut m = body.clone();
                    for p in &mut m.ir.networks[n].plans {
                        p.on_stop = Some(hilbert_certificates::ir::NodeId(i as u32));
                    }
                    out.push(with_ir(m));
                }
                out
            },
        },
        Mutation {
            name: "say the certificate is about another network",
            want: Want::Refused(None),
            make: |_, body| {
                let count = body.ir.networks.len() as u32;
                let mut out = Vec::new();
                for other in [(body.network + 1) % count, count] {
                    if other == body.network {
                        continue;
                    }
                    let mut body = body.clone();
                    body.network = other;
                    out.push(cert::encode(&body));
                }
                out
            },
        },
        Mutation {
            name: "give every unranked state rank 0",
            want: Want::Refused(None),
            make: |_, body| {
                let mut body = body.clone();
                let mut changed = false;
                for w in &mut body.witnesses {
                    if let Witness::Ranking { ranks, .. } = w {
                        for r in ranks.iter_mut().filter(|r| **r == u64::MAX) {
                            *r = 0;
                            changed = true;
                        }
                    }
                }
                if changed { one(body) } else { Vec::new() }
            },
        },
        // ------------------------------------------------ structure (re-encoded canonically)
        Mutation {
            name: "re-point the binding away from the network",
            want: Want::Invalid("no plan binding"),
            make: |_, body| {
                let mut body = body.clone();
                let n = body.network;
                let agent = body.ir.networks[n as usize].agent.0 as usize;
                for b in &mut body.ir.agents[agent].plans {
                    if b.network == Some(n) {
                        b.network = None;
                    }
                }
                vec![with_ir(body)]
            },
        },
        Mutation {
            name: "point the root at a plan that does not exist",
            want: Want::Invalid("root plan"),
            make: |_, body| {
                let mut body = body.clone();
                body.ir.networks[body.network as usize].root.0 = 99;
                vec![with_ir(body)]
            },
        },
        Mutation {
            name: "point the certificate at a network that does not exist",
            want: Want::Invalid("is not in the IR"),
            make: |_, body| {
                let mut body = body.clone();
                body.network = body.ir.networks.len() as u32;
                one(body)
            },
        },
        Mutation {
            name: "drop every witness",
            want: Want::Refused(Some("obligations.missing")),
            make: |_, body| {
                let mut body = body.clone();
                body.witnesses.clear();
                one(body)
            },
        },
    ]
}

fn refused_by(report: &Report, rule: &str) -> bool {
    report
        .obligations
        .iter()
        .any(|(_, v)| matches!(v, Verdict::Refused(r) if r.rule == rule))
}

/// What one run over every mutant found.
struct Tally {
    mutants: usize,
    excused: Vec<String>,
    failures: Vec<String>,
    rules: BTreeSet<&'static str>,
    per_kind: BTreeMap<&'static str, usize>,
}

fn run_all() -> Tally {
    let mut t = Tally {
        mutants: 0,
        excused: Vec::new(),
        failures: Vec::new(),
        rules: BTreeSet::new(),
        per_kind: BTreeMap::new(),
    };
    for b in certificates() {
        let original = body(b);
        let admitted = check(&b.bytes, Some(&b.expected())).admitted.is_some();
        for m in mutations() {
            for bytes in (m.make)(b, &original) {
                t.mutants += 1;
                *t.per_kind.entry(m.name).or_default() += 1;
                let what = format!("{} / {}: {}", b.example, b.name, m.name);
                if bytes == b.bytes {
                    t.failures
                        .push(format!("{what}: the mutant is the original"));
                    continue;
                }
                // Against the sources, no mutant is admitted: the IR must be theirs.
                let bound = check(&bytes, Some(&b.expected()));
                if bound.admitted.is_some() {
                    t.failures
                        .push(format!("{what}: ADMITTED against the example's sources"));
                }
                // The kernel alone judges the claim about the IR inside the certificate; the
                // source mutations need the sources to be seen at all.
                let report = if matches!(m.want, Want::Invalid("source")) {
                    bound
                } else {
                    check(&bytes, None)
                };
                for (_, v) in &report.obligations {
                    if let Verdict::Refused(r) = v {
                        t.rules.insert(r.rule);
                    }
                }
                match (m.want, &report.invalid) {
                    (Want::Invalid(text), Some(why)) if why.contains(text) => {}
                    (Want::Invalid(text), _) => t.failures.push(format!(
                        "{what}: wanted invalid ({text}), got invalid {:?}, obligations {:?}",
                        report.invalid, report.obligations
                    )),
                    (Want::Refused(_), Some(_)) => {}
                    (Want::Refused(_), None) if report.admitted.is_some() => {
                        let mutated = cert::decode(&bytes).expect("an admitted mutant decodes");
                        if claim_holds(&mutated) == Some(true) {
                            t.excused.push(what);
                        } else {
                            t.failures.push(format!(
                                "{what}: ADMITTED, and the explorer says the claim is false"
                            ));
                        }
                    }
                    (Want::Refused(Some(rule)), None) if admitted && !refused_by(&report, rule) => {
                        t.failures.push(format!(
                            "{what}: refused, but not by `{rule}`: {:?}",
                            report.obligations
                        ));
                    }
                    (Want::Refused(_), None) => {}
                }
            }
        }
    }
    t
}

#[test]
fn every_mutant_of_every_example_certificate_is_refused_or_shown_still_true() {
    let t = run_all();
    let kinds = t.per_kind.len();
    eprintln!(
        "{} mutants of {} kinds over {} certificates; {} excused:\n  {}",
        t.mutants,
        kinds,
        certificates().len(),
        t.excused.len(),
        t.excused.join("\n  ")
    );
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    assert!(kinds >= 20, "only {kinds} kinds of mutation applied");
    assert!(t.mutants >= 300, "only {} mutants", t.mutants);
    // Excused mutants are those whose mutated IR still makes every obligation true; they must
    // stay a small share (the kernel trusts the IR as the meaning of the sources, so a weaker
    // IR is a true, different claim).
    assert!(
        t.excused.len() * 10 <= t.mutants,
        "{} of {} mutants excused",
        t.excused.len(),
        t.mutants
    );
}

/// The rules `kernel/src/check.rs` and `kernel/src/props.rs` can refuse by: every quoted
/// `word.word` in them (but a file's name).
fn rules_in_source() -> BTreeSet<String> {
    let src = ["check.rs", "props.rs"]
        .map(|f| std::fs::read_to_string(common::root().join("kernel/src").join(f)).unwrap())
        .concat();
    src.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            let mut parts = s.split('.');
            let ok = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase()))
            };
            ok(parts.next()) && ok(parts.next()) && parts.next().is_none() && !s.ends_with(".rs")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn every_witness_rule_of_the_kernel_refuses_some_certificate() {
    let rules = rules_in_source();
    assert!(rules.len() >= 14, "{rules:?}");
    let mut seen: BTreeSet<String> = run_all().rules.iter().map(|r| r.to_string()).collect();
    // The examples whose theorems are refuted are refused by the kernel's own rules too.
    for b in certificates() {
        for (_, v) in check(&b.bytes, Some(&b.expected())).obligations {
            if let Verdict::Refused(r) = v {
                seen.insert(r.rule.to_string());
            }
        }
    }
    let missing: Vec<&String> = rules.difference(&seen).collect();
    assert!(
        missing.is_empty(),
        "no certificate is refused by {missing:?}"
    );
}

#[test]
fn the_kernel_admits_exactly_the_theorems_the_explorer_proves() {
    let mut failures = Vec::new();
    let mut admitted_certificates = 0;
    for b in certificates() {
        let report = check(&b.bytes, Some(&b.expected()));
        assert!(report.invalid.is_none(), "{}: {:?}", b.name, report.invalid);
        assert_eq!(report.network.as_deref(), Some(b.name.as_str()));
        let names: Vec<&String> = report.obligations.iter().map(|(n, _)| n).collect();
        let want: Vec<&String> = b.theorems.iter().map(|(n, _)| n).collect();
        assert_eq!(
            names, want,
            "{}: the kernel derives other obligations",
            b.name
        );
        for ((name, verdict), (_, proved)) in report.obligations.iter().zip(&b.theorems) {
            if (*verdict == Verdict::Proved) != *proved {
                failures.push(format!(
                    "{} / {}: {name}: explorer proved = {proved}, kernel {verdict:?}",
                    b.example, b.name
                ));
            }
        }
        let all = b.theorems.iter().all(|(_, p)| *p);
        assert_eq!(report.admitted.is_some(), all, "{}", b.name);
        admitted_certificates += usize::from(all);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(admitted_certificates >= 3);
    assert!(certificates().len() >= 10);
}

#[test]
fn the_independent_judge_tells_true_claims_from_false_ones() {
    // The excusal rule is only as good as the judge: it must say "true" of every certificate
    // the explorer proved, and "false" of every one with a refuted theorem.
    for b in certificates() {
        let all = b.theorems.iter().all(|(_, p)| *p);
        assert_eq!(
            claim_holds(&body(b)),
            Some(all),
            "{} / {}",
            b.example,
            b.name
        );
    }
}
