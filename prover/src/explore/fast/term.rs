//! Hash-consed process terms: a term is a `u32` into an arena, equal terms have equal ids, and
//! each term carries what the explorer asks of it often (whether a settle leaves it as it is, at
//! what fuel, its first fault).
//!
//! While a level of the search is expanded in parallel, the global arena is frozen and every
//! worker builds new terms in a local [`Overlay`] (ids with [`LOCAL`] set); the sequential part
//! of the level imports them.

use hilbert_certificates::ir::{Network, Node};
use hilbert_kernel::semantics::Fault;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A fast, non-cryptographic hasher (the Fx multiply-rotate scheme).
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with the [`Fx`] hasher.
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A value at run time: like [`hilbert_certificates::ir::Value`], with strings interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum V {
    Int(i64),
    Bool(bool),
    /// Index into the string table.
    Str(u32),
    Chan {
        instance: u32,
        plan: u32,
        index: u32,
    },
}

/// A term id. Ids with [`LOCAL`] set live in a worker's overlay.
pub(crate) type Tid = u32;

/// The bit that marks an overlay id.
pub(crate) const LOCAL: u32 = 1 << 31;

/// What a `Handling` becomes when its handlers have finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum After {
    End,
    Suspend(Tid),
    Continue(Tid),
    Restart(Tid),
}

/// One node of a term; children are ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum T {
    Done,
    Faulted(Fault),
    Thread {
        inst: u32,
        plan: u32,
        ready: bool,
        /// 0, or the number (from 1) of the command the thread waits for, inside a step (the
        /// reference's `Mode::Waiting`); no state holds a waiting thread.
        wait: u32,
        stack: Box<[u32]>,
        env: Box<[V]>,
    },
    Then(Tid, Tid),
    Par(Box<[Tid]>),
    Choice(Box<[Tid]>),
    Interrupt(Tid, Tid),
    Suspended(Tid),
    Label {
        inst: u32,
        label: u32,
        body: Tid,
        start: Tid,
    },
    Inst {
        inst: u32,
        plan: u32,
        params: Box<[V]>,
        body: Tid,
    },
    Handling {
        body: Tid,
        then: After,
    },
}

/// Facts about a term, computed once when it is interned.
///
/// `stable[e]`: running the term (with effects when `e` is 1, as structure only when 0) returns
/// the term itself and consumes exactly `cost[e]` fuel, provided no tail call is pending, the
/// fuel suffices and `height` more nesting levels fit.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    pub stable: [bool; 2],
    pub cost: [u32; 2],
    pub height: u32,
    pub done: bool,
    pub fault: Option<Fault>,
    /// Whether a thread waiting for its command is inside (only ever so within a step).
    pub waiting: bool,
}

/// An arena of interned terms.
#[derive(Default)]
pub(crate) struct Arena {
    pub terms: Vec<T>,
    pub metas: Vec<Meta>,
    pub index: Index,
    /// The words the terms hold (a node, its children, its stack and slots), summed: what a
    /// worker's overlay has grown to, for bounding it.
    pub words: usize,
}

/// The words of one node: itself, its children, and a thread's stack and slots.
pub(crate) fn words(t: &T) -> usize {
    1 + match t {
        T::Thread { stack, env, .. } => stack.len() + 2 * env.len(),
        T::Par(cs) | T::Choice(cs) => cs.len(),
        T::Inst { params, .. } => 2 * params.len(),
        _ => 2,
    }
}

impl Arena {
    /// Heap bytes, approximately: the vectors' capacity and the index's slots (not the boxed
    /// stacks and environments inside threads).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.terms.capacity() * size_of::<T>()
            + self.metas.capacity() * size_of::<Meta>()
            + self.index.slots.capacity() * size_of::<u64>()
    }
}

/// The index of an arena's terms: open addressing over slots that pack a term's tag (the high
/// half of its hash) and its id, so that each term is stored once, in the arena's `terms`, and
/// its hash is computed once however many arenas are asked.
#[derive(Default)]
pub(crate) struct Index {
    slots: Vec<u64>,
    len: usize,
}

const EMPTY: u64 = u64::MAX;

/// The tag of a term: the high half of its Fx hash (the well-mixed half).
pub(crate) fn tag_of(t: &T) -> u32 {
    let mut h = Fx::default();
    t.hash(&mut h);
    (h.finish() >> 32) as u32
}

impl Index {
    /// The id of the term equal to `t` (whose tag is `tag`) among `terms`.
    pub fn find(&self, terms: &[T], tag: u32, t: &T) -> Option<Tid> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = tag as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if (s >> 32) as u32 == tag && terms[s as u32 as usize] == *t {
                return Some(s as u32);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds the id of a term known to be absent.
    pub fn insert(&mut self, tag: u32, id: Tid) {
        if (self.len + 1) * 2 > self.slots.len() {
            let size = (self.slots.len() * 2).max(64);
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
            for s in old.into_iter().filter(|&s| s != EMPTY) {
                self.place(s);
            }
        }
        self.place(((tag as u64) << 32) | id as u64);
        self.len += 1;
    }

    fn place(&mut self, slot: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (slot >> 32) as usize & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }
}

/// Where terms are read and made: the global arena, and (while a level is expanded) a worker's
/// local one on top of it.
pub(crate) struct Overlay<'g> {
    pub global: &'g Arena,
    pub local: Arena,
}

/// Read access to terms.
pub(crate) trait Terms {
    fn get(&self, id: Tid) -> &T;
    fn meta(&self, id: Tid) -> &Meta;
}

impl Terms for Arena {
    fn get(&self, id: Tid) -> &T {
        &self.terms[id as usize]
    }
    fn meta(&self, id: Tid) -> &Meta {
        &self.metas[id as usize]
    }
}

/// Read access to a global arena and a local one over it, both borrowed.
pub(crate) struct View<'a> {
    pub global: &'a Arena,
    pub local: &'a Arena,
}

/// Entry `id` of a global table, or of a local one when `id` is marked [`LOCAL`].
fn pick<'a, X>(id: Tid, global: &'a [X], local: &'a [X]) -> &'a X {
    if id & LOCAL != 0 {
        &local[(id & !LOCAL) as usize]
    } else {
        &global[id as usize]
    }
}

impl Terms for View<'_> {
    fn get(&self, id: Tid) -> &T {
        pick(id, &self.global.terms, &self.local.terms)
    }
    fn meta(&self, id: Tid) -> &Meta {
        pick(id, &self.global.metas, &self.local.metas)
    }
}

impl Terms for Overlay<'_> {
    fn get(&self, id: Tid) -> &T {
        pick(id, &self.global.terms, &self.local.terms)
    }
    fn meta(&self, id: Tid) -> &Meta {
        pick(id, &self.global.metas, &self.local.metas)
    }
}

/// The node kinds a ready thread may wait at (where running it as structure stops at once).
fn waits_at(node: &Node) -> bool {
    matches!(
        node,
        Node::Stop
            | Node::Send { .. }
            | Node::Recv { .. }
            | Node::Believe(_)
            | Node::Forget(_)
            | Node::Tell { .. }
            | Node::Command { .. }
            | Node::Call { tail: true, .. }
    )
}

/// The facts of a term whose children are already known to `terms`.
pub(crate) fn meta_of(net: &Network, terms: &dyn Terms, t: &T) -> Meta {
    let m = |id: Tid| terms.meta(id);
    let mut meta = Meta {
        stable: [true, true],
        cost: [0, 0],
        height: 0,
        done: false,
        fault: None,
        waiting: false,
    };
    match t {
        T::Done => meta.done = true,
        T::Faulted(f) => meta.fault = Some(f.clone()),
        T::Thread { wait, .. } if *wait != 0 => {
            // A waiting thread does not run, with effects or without, at no cost.
        }
        T::Thread { ready, stack, .. } => {
            if !*ready {
                meta.stable = [false, false];
            } else {
                // With effects a ready thread waits; as structure it runs one node and stops.
                let waits = stack
                    .last()
                    .and_then(|&n| net.nodes.get(n as usize))
                    .is_some_and(waits_at);
                meta.stable[0] = waits;
                meta.cost[0] = 1;
            }
        }
        T::Then(a, _) => {
            let a = m(*a);
            meta.stable = [a.stable[0] && !a.done, a.stable[1] && !a.done];
            meta.cost = a.cost;
            meta.height = a.height + 1;
            meta.fault = a.fault.clone();
        }
        T::Par(cs) => {
            let all_done = cs.iter().all(|&c| m(c).done);
            for e in 0..2 {
                meta.stable[e] = !all_done && cs.iter().all(|&c| m(c).stable[e]);
                meta.cost[e] = cs.iter().map(|&c| m(c).cost[e]).sum();
            }
            meta.height = 1 + cs.iter().map(|&c| m(c).height).max().unwrap_or(0);
            meta.fault = cs.iter().find_map(|&c| m(c).fault.clone());
        }
        T::Choice(cs) => {
            let s = cs.iter().all(|&c| m(c).stable[0]);
            let c: u32 = cs.iter().map(|&c| m(c).cost[0]).sum();
            meta.stable = [s, s];
            meta.cost = [c, c];
            meta.height = 1 + cs.iter().map(|&c| m(c).height).max().unwrap_or(0);
            meta.fault = cs.iter().find_map(|&c| m(c).fault.clone());
        }
        T::Interrupt(p, q) => {
            let (p, q) = (m(*p), m(*q));
            for e in 0..2 {
                meta.stable[e] = p.stable[e] && !p.done && q.stable[0];
                meta.cost[e] = p.cost[e] + q.cost[0];
            }
            meta.height = 1 + p.height.max(q.height);
            meta.fault = p.fault.clone().or_else(|| q.fault.clone());
        }
        T::Suspended(b) => meta.fault = m(*b).fault.clone(),
        T::Label { body, .. } | T::Inst { body, .. } | T::Handling { body, .. } => {
            let b = m(*body);
            meta.stable = [b.stable[0] && !b.done, b.stable[1] && !b.done];
            meta.cost = b.cost;
            meta.height = b.height + 1;
            meta.fault = b.fault.clone();
        }
    }
    // Where `sem::map_waiting` looks (a waiting thread is never anywhere else).
    meta.waiting = match t {
        T::Done | T::Faulted(_) => false,
        T::Thread { wait, .. } => *wait != 0,
        T::Then(a, _) | T::Suspended(a) => m(*a).waiting,
        T::Par(cs) | T::Choice(cs) => cs.iter().any(|&c| m(c).waiting),
        T::Interrupt(p, q) => m(*p).waiting || m(*q).waiting,
        T::Label { body, .. } | T::Inst { body, .. } => m(*body).waiting,
        T::Handling { body, then } => {
            m(*body).waiting
                || matches!(then, After::Suspend(s) | After::Continue(s) if m(*s).waiting)
        }
    };
    meta
}

impl Arena {
    /// Interns a term whose children are in this arena.
    pub fn intern(&mut self, net: &Network, t: T) -> Tid {
        let tag = tag_of(&t);
        if let Some(id) = self.index.find(&self.terms, tag, &t) {
            return id;
        }
        let meta = meta_of(net, self, &t);
        let id = self.terms.len() as Tid;
        assert!(id < LOCAL, "more than 2^31 distinct terms");
        self.terms.push(t);
        self.metas.push(meta);
        self.index.insert(tag, id);
        id
    }

    /// Imports a term of `local` (an overlay's arena over this one) into this arena. `memo`
    /// remembers the ids already imported.
    pub fn import(&mut self, net: &Network, local: &Arena, id: Tid, memo: &mut Vec<Tid>) -> Tid {
        if id & LOCAL == 0 {
            return id;
        }
        let i = (id & !LOCAL) as usize;
        if memo.len() < local.terms.len() {
            memo.resize(local.terms.len(), Tid::MAX);
        }
        if memo[i] != Tid::MAX {
            return memo[i];
        }
        let mut f = |c: Tid, this: &mut Arena| this.import(net, local, c, memo);
        let t = match &local.terms[i] {
            T::Then(a, b) => {
                let a = f(*a, self);
                T::Then(a, f(*b, self))
            }
            T::Par(cs) => T::Par(cs.iter().map(|&c| f(c, self)).collect()),
            T::Choice(cs) => T::Choice(cs.iter().map(|&c| f(c, self)).collect()),
            T::Interrupt(p, q) => {
                let p = f(*p, self);
                T::Interrupt(p, f(*q, self))
            }
            T::Suspended(b) => T::Suspended(f(*b, self)),
            T::Label {
                inst,
                label,
                body,
                start,
            } => {
                let body = f(*body, self);
                T::Label {
                    inst: *inst,
                    label: *label,
                    body,
                    start: f(*start, self),
                }
            }
            T::Inst {
                inst,
                plan,
                params,
                body,
            } => T::Inst {
                inst: *inst,
                plan: *plan,
                params: params.clone(),
                body: f(*body, self),
            },
            T::Handling { body, then } => {
                let body = f(*body, self);
                let then = match *then {
                    After::End => After::End,
                    After::Suspend(s) => After::Suspend(f(s, self)),
                    After::Continue(s) => After::Continue(f(s, self)),
                    After::Restart(s) => After::Restart(f(s, self)),
                };
                T::Handling { body, then }
            }
            other => other.clone(),
        };
        let g = self.intern(net, t);
        memo[i] = g;
        g
    }
}

impl Overlay<'_> {
    /// Interns a term: its global id if the global arena has it, else a local one.
    pub fn mk(&mut self, net: &Network, t: T) -> Tid {
        let tag = tag_of(&t);
        if let Some(id) = self.global.index.find(&self.global.terms, tag, &t) {
            return id;
        }
        if let Some(id) = self.local.index.find(&self.local.terms, tag, &t) {
            return id | LOCAL;
        }
        let meta = meta_of(net, self, &t);
        let id = self.local.terms.len() as Tid;
        self.local.words += words(&t);
        self.local.terms.push(t);
        self.local.metas.push(meta);
        self.local.index.insert(tag, id);
        id | LOCAL
    }
}
