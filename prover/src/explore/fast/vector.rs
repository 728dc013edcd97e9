//! States as vectors: a scene whose root instance runs a wide `‖` is stored and stepped slot by
//! slot, as Spin's and LTSmin's state vectors and FDR's supercombinators do.
//!
//! **The layout.** A network's *arity* is the number of children of the widest root `‖` among
//! its start states (`Inst { body: Par(c₀ … cₙ₋₁) }`), or 0. Every state is a key of
//! `width = arity + 2` words (1 … 3 words when the arity is 0): word 0 is the *shape* (the root
//! instance, its plan and parameters, interned from 1) and words `1..=arity` the children's
//! hash-consed term ids — a *vector state* — or word 0 is 0 and word 1 the id of the whole
//! term — a *scalar state*; the last word is the belief set. A term is a vector state exactly
//! when it is `Inst { body: Par(cs) }` with `cs.len() == arity` (`Global::key_of`), whichever
//! path made it, so that one state never has two keys. The visited set ([`Visited`]) is an
//! open-addressing table of ids over the keys stored flat, `width` words a state, in blocks.
//! No vector state's root `Par` or `Inst` is ever interned: the certificate's table and
//! [`super::Explored::state`] rebuild them from the key.
//!
//! **A step of a vector state** is put together from its children's memoised parts:
//! - each child term's offers, with paths from the child (`Global::coffers`): the state's
//!   offers are theirs in slot order, behind the path `[0, i]` (the root's body, child `i`);
//! - each *fire*: a child fired at its own offers (a τ-step, the send or the receive half of
//!   a rendezvous with another child, or a rendezvous inside the child) and run as the settle
//!   runs it, at nesting 2, with the whole step's fuel ([`super::sem::Code::fire_child`]): the
//!   child after, its belief operations, its fuel; memoised by (child, offer, action, value);
//! - the act (event, operations in slot order) of a rendezvous across two children, memoised
//!   by its two fires.
//!
//! The steps are listed in the reference's order: the τ offers in order, then every send
//! against every receive in order (two children always meet at the root `‖`; inside one child
//! the reference's `diverge_at_par` decides). The next state is the vector with the moved slots
//! rewritten; the belief set is replayed as for any step.
//!
//! **Why that is the reference's step.** The reference fires the whole term (`fire_at` only
//! rebuilds the path down to the moved children, so the result is the root with those
//! children fired), then settles it: the root instance runs its body, the `‖` runs each child
//! at nesting 2 left to right, with one fuel counter and one list of operations, tail calls and
//! commands, then the instance consumes the tail calls of its own instance and lands the
//! commands. The run of a term depends on the context only through the fuel left, the nesting
//! and the pending tail calls (a command is only queued). So when
//! - every child of the state is stable when settled (`Meta::stable[1]`: it returns itself at
//!   its `cost[1]` fuel) and fits in the nesting (`2 + height < MAX_NESTING`),
//! - each moved child, run alone with all the fuel, neither diverged nor queued a command nor
//!   left a tail call pending (so none is pending at any later sibling, and none reaches the
//!   root instance, which therefore keeps its plan and parameters),
//! - the fuel of the whole step (the stable children's `cost[1]` and the moved children's
//!   fuel) is at most `MACRO_STEP_FUEL` (so no fuel check of any child fails where it did not
//!   alone, and every stable child is skipped as alone), and
//! - not every child is `Done` after it (so the `‖` and the root stay),
//!
//! the settle of the whole term is the stable children unchanged and the moved ones as they
//! ran alone, the operations are theirs in slot order, nothing lands, and the step does not
//! diverge. Everywhere else — a child that is not stable, a fire that diverged, issued a
//! command or left a tail call, too much fuel, a `‖` that finishes — the step is computed by
//! the general path from the root term built in the worker's overlay (`Code::fire`, or
//! `Code::steps` for the whole state), exactly as for a scalar state, and its next term is
//! keyed by `Global::key_of` like any other. `tests/differential.rs` compares both paths with
//! the reference explorer on wide random programs.
//!
//! **In parallel.** Workers only read the memo tables. A state whose part is missing is handed
//! back as [`Need`]; the sequential numbering computes that part (in an overlay over the
//! global arena, then imported) and expands the state again, so the memo tables grow only
//! there and the numbering is the sequential one.

use super::sem::{Action, LStep, OfferKind};
use super::term::{Arena, FxMap, LOCAL, Overlay, T, Terms, Tid, V};
use super::{ChunkOut, Found, Global, NONE, OpI};
use hilbert_kernel::semantics::{MACRO_STEP_FUEL, MAX_NESTING};

/// The nesting at which the root `‖` runs its children (the root instance, then the `‖`).
const CHILD_DEPTH: u32 = 2;

/// A fire's kind: a τ-step, a send (the sender's half of a rendezvous across children), a
/// receive of `value`, a rendezvous inside one child.
pub(super) const TAU: u8 = 0;
pub(super) const SEND: u8 = 1;
pub(super) const RECV: u8 = 2;
pub(super) const PAIR: u8 = 3;

/// A child fired at its offer(s) `a` (and `b`, the receiver of a `PAIR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct FireKey {
    pub child: Tid,
    pub kind: u8,
    pub a: u32,
    pub b: u32,
    pub value: V,
}

/// A memoised fire: see [`super::sem::ChildRun`]; `act` is the act of the step when the fire
/// is a whole step (a τ-step or a rendezvous inside the child), else `NONE`.
pub(super) struct Fire {
    pub next: Tid,
    pub ops: Box<[OpI]>,
    pub overflow: bool,
    pub fuel: u32,
    pub ok: bool,
    pub next_done: bool,
    pub act: u32,
}

/// A part a worker found missing.
#[derive(Clone, Copy, Debug)]
pub(super) enum Need {
    Offers(Tid),
    Fire(FireKey),
    /// A rendezvous across children: the fires, the two offers (indices into
    /// `Global::offers`), and whether the sender's slot comes first.
    Cross {
        send: u32,
        recv: u32,
        offers: (u32, u32),
        sender_first: bool,
    },
    /// The state's steps alone made more words than one state may (`state_cap` of
    /// [`Global::expand`]): this many, counting its next vectors' slots as words.
    Wide(usize),
}

/// `Err(Need::Wide)` once a state's steps have made more than `cap` words: the overlay's and
/// the slots of the next vectors written since `keys_at`.
fn within(ar: &Overlay, out: &ChunkOut, keys_at: usize, cap: usize) -> Result<(), Need> {
    let made = ar.local.words + (out.keys.len() - keys_at);
    if made > cap {
        return Err(Need::Wide(made));
    }
    Ok(())
}

/// A child's offer, with its path from the child.
pub(super) struct COffer {
    pub inst: u32,
    pub kind: OfferKind,
    pub path: Box<[u32]>,
}

/// The root instance of a vector state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Shape {
    pub inst: u32,
    pub plan: u32,
    pub params: Box<[V]>,
}

/// The keys' layout and the shapes met so far.
pub(super) struct Layout {
    pub arity: usize,
    pub width: usize,
    pub shapes: Vec<Shape>,
    shape_index: FxMap<Shape, u32>,
}

impl Layout {
    pub fn new(arity: usize) -> Layout {
        Layout {
            arity,
            width: if arity == 0 { 3 } else { arity + 2 },
            shapes: Vec::new(),
            shape_index: FxMap::default(),
        }
    }

    /// The shape's id (from 1), if it is known.
    pub fn find(&self, shape: &Shape) -> Option<u32> {
        self.shape_index.get(shape).copied()
    }

    pub fn intern(&mut self, shape: Shape) -> u32 {
        if let Some(i) = self.find(&shape) {
            return i;
        }
        self.shapes.push(shape.clone());
        let i = self.shapes.len() as u32;
        self.shape_index.insert(shape, i);
        i
    }

    pub fn shape(&self, id: u32) -> &Shape {
        &self.shapes[id as usize - 1]
    }

    /// The key of the global term `t` (belief set 0) into `buf`; `false` when it is a vector
    /// state of a shape not met yet.
    pub fn key_into(&self, arena: &Arena, t: Tid, buf: &mut Vec<u32>) -> bool {
        buf.clear();
        if let Some((shape, cs)) = self.split(arena, t) {
            let Some(s) = self.find(&shape) else {
                return false;
            };
            buf.push(s);
            buf.extend_from_slice(cs);
            buf.push(0);
            return true;
        }
        buf.push(0);
        buf.push(t);
        buf.resize(self.width, 0);
        true
    }

    /// The shape and children of a term that is a vector state.
    pub fn split<'a>(&self, terms: &'a dyn Terms, t: Tid) -> Option<(Shape, &'a [Tid])> {
        if self.arity == 0 {
            return None;
        }
        let T::Inst {
            inst,
            plan,
            params,
            body,
        } = terms.get(t)
        else {
            return None;
        };
        let T::Par(cs) = terms.get(*body) else {
            return None;
        };
        (cs.len() == self.arity).then(|| {
            (
                Shape {
                    inst: *inst,
                    plan: *plan,
                    params: params.clone(),
                },
                &cs[..],
            )
        })
    }
}

/// The visited set: every state's key, `width` words, by id (in blocks, so that growing never
/// copies them), and an open-addressing table of (hash tag, id) slots.
pub(super) struct Visited {
    width: usize,
    /// log2 of the keys a block holds.
    bits: u32,
    blocks: Vec<Box<[u32]>>,
    len: usize,
    slots: Vec<u64>,
}

const EMPTY: u64 = u64::MAX;

/// The hash of a key: Fx over its words, then the MurmurHash3 finaliser.
pub(super) fn hash(key: &[u32]) -> u64 {
    let mut h: u64 = 0;
    for &w in key {
        h = (h.rotate_left(5) ^ w as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl Visited {
    pub fn new(width: usize) -> Visited {
        // Blocks of about 2^17 words (512 KiB), whatever the width.
        let mut bits = 0;
        while (width << (bits + 1)) <= 1 << 17 {
            bits += 1;
        }
        Visited {
            width,
            bits,
            blocks: Vec::new(),
            len: 0,
            slots: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn key(&self, id: u32) -> &[u32] {
        let id = id as usize;
        let at = (id & ((1 << self.bits) - 1)) * self.width;
        &self.blocks[id >> self.bits][at..at + self.width]
    }

    pub fn find(&self, key: &[u32]) -> Option<u32> {
        self.find_hashed(key, hash(key))
    }

    pub fn find_hashed(&self, key: &[u32], h: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let tag = h >> 32;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if s >> 32 == tag && self.key(s as u32) == key {
                return Some(s as u32);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a key known to be absent; returns its id.
    pub fn add(&mut self, key: &[u32]) -> u32 {
        debug_assert_eq!(key.len(), self.width);
        let id = self.len as u32;
        let per = 1usize << self.bits;
        if self.len & (per - 1) == 0 {
            self.blocks
                .push(vec![0; per * self.width].into_boxed_slice());
        }
        let at = (self.len & (per - 1)) * self.width;
        self.blocks[self.len >> self.bits][at..at + self.width].copy_from_slice(key);
        self.len += 1;
        if self.len * 8 > self.slots.len() * 7 {
            self.grow();
        } else {
            self.place(id, hash(key));
        }
        id
    }

    fn place(&mut self, id: u32, h: u64) {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = (h >> 32) << 32 | id as u64;
    }

    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(1024);
        self.slots = vec![EMPTY; n];
        for id in 0..self.len as u32 {
            let h = hash(self.key(id));
            self.place(id, h);
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.len() * 4).sum::<usize>()
            + self.blocks.capacity() * std::mem::size_of::<Box<[u32]>>()
            + self.slots.capacity() * 8
    }
}

/// Scratch space of one worker.
#[derive(Default)]
pub(super) struct Scratch {
    /// The state's offers: (slot, offer index within the child, index in `Global::offers`).
    all: Vec<(u32, u32, u32)>,
    /// The root term of the state being expanded, once built in the overlay.
    root: Option<Tid>,
}

/// A step of a vector state, for the general path.
#[derive(Clone, Copy)]
enum Desc {
    Tau { slot: u32, offer: u32 },
    Sync { ss: u32, so: u32, rs: u32, ro: u32 },
}

impl Global<'_> {
    /// Expands the vector state `key` (its steps into `out`), or says which part is missing.
    /// On `Err`, `out` may hold part of the state's steps: the caller drops them.
    pub(super) fn vsteps(
        &self,
        ar: &mut Overlay,
        key: &[u32],
        out: &mut ChunkOut,
        sc: &mut Scratch,
        cap: usize,
    ) -> Result<(), Need> {
        let arity = self.layout.arity;
        let keys_at = out.keys.len();
        let cs = &key[1..=arity];
        sc.root = None;
        let mut base: u64 = 0;
        for &c in cs {
            let m = self.arena.meta(c);
            if !m.stable[1] || CHILD_DEPTH + m.height >= MAX_NESTING {
                return self.vfallback_state(ar, key, out, sc, cap);
            }
            base += m.cost[1] as u64;
        }
        let mut all = std::mem::take(&mut sc.all);
        all.clear();
        for (i, &c) in cs.iter().enumerate() {
            let span = self.coffers.get(c as usize).copied().unwrap_or(NONE);
            if span == NONE {
                return Err(Need::Offers(c));
            }
            let (start, len) = self.offer_spans[span as usize];
            all.extend((0..len).map(|k| (i as u32, k, start + k)));
        }
        for &(i, k, o) in &all {
            if let OfferKind::Tau = self.offers[o as usize].kind {
                let f = self.fire_id(cs[i as usize], TAU, k, 0, V::Int(0))?;
                let act = self.fires[f as usize].act;
                self.vstep(
                    ar,
                    key,
                    base,
                    &[(i, f)],
                    act,
                    Desc::Tau { slot: i, offer: o },
                    out,
                    sc,
                );
                within(ar, out, keys_at, cap)?;
            }
        }
        for &(si, sk, so) in &all {
            let OfferKind::Send(chan, value) = self.offers[so as usize].kind else {
                continue;
            };
            for &(ri, rk, ro) in &all {
                let OfferKind::Recv(rchan) = self.offers[ro as usize].kind else {
                    continue;
                };
                if rchan != chan {
                    continue;
                }
                let desc = Desc::Sync {
                    ss: si,
                    so,
                    rs: ri,
                    ro,
                };
                if si == ri {
                    let child = cs[si as usize];
                    let (a, b) = (
                        &self.offers[so as usize].path,
                        &self.offers[ro as usize].path,
                    );
                    if !self.code.diverge_at_par(ar, child, a, b) {
                        continue;
                    }
                    let f = self.fire_id(child, PAIR, sk, rk, value)?;
                    let act = self.fires[f as usize].act;
                    self.vstep(ar, key, base, &[(si, f)], act, desc, out, sc);
                    within(ar, out, keys_at, cap)?;
                } else {
                    let fs = self.fire_id(cs[si as usize], SEND, sk, 0, V::Int(0))?;
                    let fr = self.fire_id(cs[ri as usize], RECV, rk, 0, value)?;
                    let act = match self.cross.get(&(fs, fr, si < ri)) {
                        Some(&a) => a,
                        None => {
                            return Err(Need::Cross {
                                send: fs,
                                recv: fr,
                                offers: (so, ro),
                                sender_first: si < ri,
                            });
                        }
                    };
                    self.vstep(ar, key, base, &[(si, fs), (ri, fr)], act, desc, out, sc);
                    within(ar, out, keys_at, cap)?;
                }
            }
        }
        sc.all = all;
        Ok(())
    }

    /// The memoised fire of `child` of this kind at its offers `a` and `b`.
    fn fire_id(&self, child: Tid, kind: u8, a: u32, b: u32, value: V) -> Result<u32, Need> {
        let key = FireKey {
            child,
            kind,
            a,
            b,
            value,
        };
        self.fire_index.get(&key).copied().ok_or(Need::Fire(key))
    }

    /// One step of a vector state from its fires, or by the general path where the fast one
    /// does not apply (see the module's docs).
    #[allow(clippy::too_many_arguments)]
    fn vstep(
        &self,
        ar: &mut Overlay,
        key: &[u32],
        base: u64,
        moved: &[(u32, u32)],
        act: u32,
        desc: Desc,
        out: &mut ChunkOut,
        sc: &mut Scratch,
    ) {
        let w = self.layout.width;
        let mut fuel = base;
        let mut ok = true;
        let mut ends = false;
        for &(i, f) in moved {
            let fire = &self.fires[f as usize];
            ok &= fire.ok;
            ends |= fire.next_done;
            fuel = fuel - self.arena.meta(key[1 + i as usize]).cost[1] as u64 + fire.fuel as u64;
        }
        ok &= fuel <= MACRO_STEP_FUEL as u64;
        if ok && ends {
            // Whether the `‖` finishes: every child done after the step.
            let all_done = (0..self.layout.arity as u32).all(|j| {
                let t = moved
                    .iter()
                    .find(|&&(i, _)| i == j)
                    .map_or(key[1 + j as usize], |&(_, f)| self.fires[f as usize].next);
                self.arena.meta(t).done
            });
            ok = !all_done;
        }
        if !ok {
            self.vfallback_step(ar, key, desc, out, sc);
            return;
        }
        let at = out.keys.len();
        out.keys.extend_from_slice(key);
        for &(i, f) in moved {
            out.keys[at + 1 + i as usize] = self.fires[f as usize].next;
        }
        let set = key[w - 1];
        let replay = self.replay.get(&(act, set)).copied();
        let mut to = NONE;
        if let Some((after, _)) = replay {
            out.keys[at + w - 1] = after;
            if let Some(id) = self.visited.find(&out.keys[at..at + w]) {
                to = id;
                out.keys.truncate(at);
            }
        }
        out.found.push(Found {
            act,
            next: if to == NONE { at as u32 } else { NONE },
            vector: true,
            replay: replay.unwrap_or((NONE, NONE)),
            to,
        });
    }

    /// The root term of a vector state, built in the overlay.
    pub(super) fn root_term(&self, ar: &mut Overlay, key: &[u32]) -> Tid {
        let net = self.code.net;
        let shape = self.layout.shape(key[0]);
        let cs: Box<[Tid]> = key[1..=self.layout.arity].into();
        let body = ar.mk(net, T::Par(cs));
        ar.mk(
            net,
            T::Inst {
                inst: shape.inst,
                plan: shape.plan,
                params: shape.params.clone(),
                body,
            },
        )
    }

    fn root(&self, ar: &mut Overlay, key: &[u32], sc: &mut Scratch) -> Tid {
        match sc.root {
            Some(r) => r,
            None => {
                let r = self.root_term(ar, key);
                sc.root = Some(r);
                r
            }
        }
    }

    /// Every step of a vector state by the general path.
    /// Given up past `cap` words, as [`super::sem::Code::steps`] is.
    fn vfallback_state(
        &self,
        ar: &mut Overlay,
        key: &[u32],
        out: &mut ChunkOut,
        sc: &mut Scratch,
        cap: usize,
    ) -> Result<(), Need> {
        let root = self.root(ar, key, sc);
        let steps = self
            .code
            .steps(ar, root, cap)
            .ok_or(Need::Wide(ar.local.words))?;
        for st in steps {
            push_general(out, st);
        }
        Ok(())
    }

    /// One step of a vector state by the general path.
    fn vfallback_step(
        &self,
        ar: &mut Overlay,
        key: &[u32],
        desc: Desc,
        out: &mut ChunkOut,
        sc: &mut Scratch,
    ) {
        let root = self.root(ar, key, sc);
        let path = |slot: u32, o: u32| -> Vec<u32> {
            let mut p = vec![0, slot];
            p.extend_from_slice(&self.offers[o as usize].path);
            p
        };
        let st = match desc {
            Desc::Tau { slot, offer } => {
                let event = super::sem::EventV::Tau {
                    inst: self.offers[offer as usize].inst,
                };
                let p = path(slot, offer);
                self.code.fire(ar, root, event, &[(&p, Action::Tau)])
            }
            Desc::Sync { ss, so, rs, ro } => {
                let (s, r) = (&self.offers[so as usize], &self.offers[ro as usize]);
                let (OfferKind::Send(chan, value), OfferKind::Recv(_)) = (&s.kind, &r.kind) else {
                    unreachable!("a rendezvous of a send and a receive");
                };
                let event = super::sem::EventV::Sync {
                    sender: s.inst,
                    receiver: r.inst,
                    chan: *chan,
                    value: *value,
                };
                let (ps, pr) = (path(ss, so), path(rs, ro));
                self.code.fire(
                    ar,
                    root,
                    event,
                    &[(&ps, Action::Pop), (&pr, Action::Receive(*value))],
                )
            }
        };
        push_general(out, st);
    }

    /// Computes a missing part (sequentially, into the global tables).
    pub(super) fn supply(&mut self, need: Need) {
        match need {
            Need::Wide(_) => unreachable!("a state too wide is a stop, not a missing part"),
            Need::Offers(c) => {
                let offers = {
                    let ar = Overlay {
                        global: &self.arena,
                        local: Arena::default(),
                    };
                    self.code.offers(&ar, c)
                };
                let start = self.offers.len() as u32;
                self.offers.extend(offers.into_iter().map(|o| COffer {
                    inst: o.inst,
                    kind: o.kind,
                    path: o.path.into(),
                }));
                self.offer_spans
                    .push((start, self.offers.len() as u32 - start));
                if self.coffers.len() <= c as usize {
                    self.coffers.resize(c as usize + 1, NONE);
                }
                self.coffers[c as usize] = (self.offer_spans.len() - 1) as u32;
            }
            Need::Fire(k) => {
                let span = self.coffers[k.child as usize];
                let (start, _) = self.offer_spans[span as usize];
                let offer = |i: u32| &self.offers[(start + i) as usize];
                let a = offer(k.a);
                let (actions, event) = match k.kind {
                    TAU => (
                        vec![(a.path.to_vec(), Action::Tau)],
                        Some(super::sem::EventV::Tau { inst: a.inst }),
                    ),
                    SEND => (vec![(a.path.to_vec(), Action::Pop)], None),
                    RECV => (vec![(a.path.to_vec(), Action::Receive(k.value))], None),
                    _ => {
                        let b = offer(k.b);
                        let OfferKind::Send(chan, _) = a.kind else {
                            unreachable!("a rendezvous inside a child starts at a send");
                        };
                        (
                            vec![
                                (a.path.to_vec(), Action::Pop),
                                (b.path.to_vec(), Action::Receive(k.value)),
                            ],
                            Some(super::sem::EventV::Sync {
                                sender: a.inst,
                                receiver: b.inst,
                                chan,
                                value: k.value,
                            }),
                        )
                    }
                };
                let (run, local) = {
                    let mut ar = Overlay {
                        global: &self.arena,
                        local: Arena::default(),
                    };
                    let run = self
                        .code
                        .fire_child(&mut ar, k.child, &actions, CHILD_DEPTH);
                    (run, ar.local)
                };
                let net = self.code.net;
                let next = self.arena.import(net, &local, run.next, &mut Vec::new());
                debug_assert_eq!(next & LOCAL, 0);
                let ops: Box<[OpI]> = run.ops.iter().map(|op| self.op_id(op)).collect();
                let act = match event {
                    Some(event) => self.act_of(event, ops.clone(), run.overflow),
                    None => NONE,
                };
                let fire = Fire {
                    next,
                    next_done: self.arena.meta(next).done,
                    ops,
                    overflow: run.overflow,
                    fuel: run.fuel,
                    ok: run.ok,
                    act,
                };
                self.fires.push(fire);
                self.fire_index.insert(k, (self.fires.len() - 1) as u32);
            }
            Need::Cross {
                send,
                recv,
                offers: (so, ro),
                sender_first,
            } => {
                let (s, r) = (&self.offers[so as usize], &self.offers[ro as usize]);
                let OfferKind::Send(chan, value) = s.kind else {
                    unreachable!("a rendezvous starts at a send");
                };
                let event = super::sem::EventV::Sync {
                    sender: s.inst,
                    receiver: r.inst,
                    chan,
                    value,
                };
                // The operations in the order the settle ran them: by slot.
                let (fs, fr) = (&self.fires[send as usize], &self.fires[recv as usize]);
                let (x, y) = if sender_first { (fs, fr) } else { (fr, fs) };
                let ops: Box<[OpI]> = x.ops.iter().chain(y.ops.iter()).copied().collect();
                let overflow = fs.overflow || fr.overflow;
                let act = self.act_of(event, ops, overflow);
                self.cross.insert((send, recv, sender_first), act);
            }
        }
    }
}

/// A step computed by the general path, for the numbering.
fn push_general(out: &mut ChunkOut, st: LStep) {
    out.found.push(Found {
        act: LOCAL | out.lsteps.len() as u32,
        next: st.next,
        vector: false,
        replay: (NONE, NONE),
        to: NONE,
    });
    out.lsteps.push(st);
}
