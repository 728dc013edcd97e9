//! A generator of random well-typed projects (`.ha` + `.hk` source text), seeded and
//! deterministic, that counts which constructs of the grammar it generated (its coverage).
//! Projects are kept as a structure the shrinker can cut down ([`Project`]).

use std::collections::BTreeMap;

/// A small seeded generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `p` percent.
    pub fn pct(&mut self, p: u32) -> bool {
        self.below(100) < p as usize
    }
    /// One of the items.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// A process as the generator builds it.
#[derive(Clone, Debug, PartialEq)]
pub enum GP {
    /// A leaf written as is: `SKIP`, `believe done(1)`, `1 → c`, `x ← c`, `abort self`, a call.
    Leaf(String),
    /// `P ; Q ; …`.
    Seq(Vec<GP>),
    /// `P ‖ Q ‖ …`.
    Par(Vec<GP>),
    /// `P □ Q □ …`.
    Choice(Vec<GP>),
    /// `P △ Q`.
    Intr(Box<GP>, Box<GP>),
    /// `l : P`.
    Label(String, Box<GP>),
    /// `match e { when v ↦ P … other ↦ Q }`.
    Match(String, Vec<(String, GP)>, Option<Box<GP>>),
}

impl GP {
    /// The source text.
    pub fn text(&self) -> String {
        match self {
            GP::Leaf(s) => s.clone(),
            GP::Seq(xs) => xs
                .iter()
                .map(|x| x.wrapped())
                .collect::<Vec<_>>()
                .join(" ; "),
            GP::Par(xs) => xs
                .iter()
                .map(|x| x.wrapped())
                .collect::<Vec<_>>()
                .join(" ‖ "),
            GP::Choice(xs) => xs
                .iter()
                .map(|x| x.wrapped())
                .collect::<Vec<_>>()
                .join(" □ "),
            GP::Intr(a, b) => format!("{} △ {}", a.wrapped(), b.wrapped()),
            GP::Label(l, b) => format!("{l} : {}", b.wrapped()),
            GP::Match(e, arms, other) => {
                let mut s = format!("match {e} {{");
                for (v, b) in arms {
                    s.push_str(&format!(" when {v} ↦ {}", b.wrapped()));
                }
                if let Some(o) = other {
                    s.push_str(&format!(" other ↦ {}", o.wrapped()));
                }
                s.push_str(" }");
                s
            }
        }
    }
    fn wrapped(&self) -> String {
        match self {
            GP::Leaf(_) | GP::Match(..) => self.text(),
            _ => format!("({})", self.text()),
        }
    }
}

/// A plan.
#[derive(Clone, Debug, PartialEq)]
pub struct GPlan {
    /// Its name.
    pub name: String,
    /// Its parameters: name and type text.
    pub params: Vec<(String, String)>,
    /// Its agent.
    pub agent: String,
    /// Its channels: name and type text (`Int`).
    pub chans: Vec<(String, String)>,
    /// Its body.
    pub body: GP,
    /// Its handlers: `stop`, `resume` or `abort`, and the process.
    pub handlers: Vec<(String, GP)>,
}

impl GPlan {
    fn text(&self) -> String {
        let params = if self.params.is_empty() {
            "()".to_string()
        } else {
            let ps: Vec<String> = self
                .params
                .iter()
                .map(|(n, t)| format!("{n}: {t}"))
                .collect();
            format!("({})", ps.join(", "))
        };
        if self.chans.is_empty() && self.handlers.is_empty() {
            return format!(
                "plan {}{params} : {} ≔ {}\n",
                self.name,
                self.agent,
                self.body.text()
            );
        }
        let mut s = format!("plan {}{params} : {}\n{{\n", self.name, self.agent);
        for (c, t) in &self.chans {
            s.push_str(&format!("  {c} : chan {t}\n"));
        }
        s.push_str(&format!("  body ≔ {}\n", self.body.text()));
        for (k, h) in &self.handlers {
            s.push_str(&format!("  on {k} ≔ {}\n", h.text()));
        }
        s.push_str("}\n");
        s
    }
}

/// An agent: its name, parameters, and member lines.
#[derive(Clone, Debug, PartialEq)]
pub struct GAgent {
    /// Its name.
    pub name: String,
    /// Its parameters: name and type.
    pub params: Vec<(String, String)>,
    /// Its members, one line each.
    pub members: Vec<String>,
}

/// A project: agents (one `.ha` file each), plan files (stem and plans), `--param` values.
#[derive(Clone, Debug, PartialEq)]
pub struct Project {
    /// The agents.
    pub agents: Vec<GAgent>,
    /// The plan files.
    pub files: Vec<(String, Vec<GPlan>)>,
    /// `AGENT.NAME=VALUE`.
    pub params: Vec<String>,
}

impl Project {
    /// The files and parameters of the project.
    pub fn sources(&self) -> crate::pipeline::Sources {
        let mut files = Vec::new();
        for a in &self.agents {
            let params = if a.params.is_empty() {
                String::new()
            } else {
                let ps: Vec<String> = a.params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                format!("({})", ps.join(", "))
            };
            let mut s = format!("agent {}{params} : Agency\n{{\n", a.name);
            for m in &a.members {
                s.push_str(&format!("  {m}\n"));
            }
            s.push_str("}\n");
            files.push((format!("{}.ha", a.name), s));
        }
        for (stem, plans) in &self.files {
            let s: String = plans.iter().map(GPlan::text).collect::<Vec<_>>().join("\n");
            files.push((format!("{stem}.hk"), s));
        }
        crate::pipeline::Sources {
            files,
            params: self.params.clone(),
        }
    }

    /// The project as one text (files separated by `==> path <==` lines), with its parameters.
    pub fn listing(&self) -> String {
        self.sources().listing()
    }
}

/// How often each construct was generated.
pub type Coverage = BTreeMap<&'static str, u64>;

/// Every construct the generator should reach; one never generated is a gap.
pub const CONSTRUCTS: &[&str] = &[
    "arg:literal",
    "arg:param",
    "arg:1 + 1",
    "arg:-t",
    "arg:¬b",
    "arg:a < b",
    "arg:string",
    "cond:B(self)",
    "cond:B(Me) own name",
    "cond:B(other)",
    "cond:computed pattern",
    "cond:bound variable",
    "cond:wildcard",
    "cond:Bool name",
    "cond:∧",
    "cond:∨",
    "cond:¬",
    "cond:=",
    "cond:≠",
    "cond:<",
    "cond:≤",
    "cond:>",
    "cond:≥",
    "cond:+ - chain",
    "cond:* / %",
    "cond:unary -",
    "cond:decimal",
    "cond:string",
    "cond:true/false",
    "cond:param",
    "cond:attending",
    "agent:attend rule",
    "agent:impossible",
    "agent:intend",
    "agent:priority",
    "agent:two desires",
    "agent:two bindings",
    "agent:desire served by two bindings",
    "agent:param",
    "agent:param unset",
    "agent:commit blind",
    "agent:commit single_minded",
    "agent:commit open_minded",
    "agents:two telling each other",
    "assert:always",
    "assert:never",
    "assert:precedes",
    "assert:eventually",
    "assert:leads to",
    "assert:under weak fairness",
    "assert:desires",
    "assert:intends",
    "agent:desire under weak fairness",
    "proc:SKIP",
    "proc:STOP",
    "proc:;",
    "proc:‖",
    "proc:nested ‖",
    "proc:□",
    "proc:△",
    "proc:label",
    "proc:send",
    "proc:receive",
    "proc:believe",
    "proc:forget",
    "proc:tell",
    "proc:match Int",
    "proc:match Bool",
    "proc:match other",
    "proc:call",
    "proc:tail call",
    "proc:tail recursion",
    "proc:call with channel",
    "cmd:stop label",
    "cmd:resume label",
    "cmd:abort label",
    "cmd:restart label",
    "cmd:stop self",
    "cmd:resume self",
    "cmd:abort self",
    "cmd:restart self",
    "cmd:after tail call",
    "cmd:several in one step",
    "handler:on stop",
    "handler:on resume",
    "handler:on abort",
    "handler:tell",
    "handler:tell in on stop or on resume",
    "handler:communicates",
    "handler:command",
    "theorem:released (single_minded, constant atom)",
    "theorem:stoppable (a higher priority, a stop or resume handler)",
    "expr:+ - * / %",
    "expr:chain",
    "expr:¬",
    "expr:comparison",
];

/// Constructs a campaign may leave out (`--avoid`), so that the disagreements already known
/// (oracle/KNOWN.md) do not hide new ones: `decimal`, `own-name`, `attending`,
/// `after-tail-call`, `several-commands`, `restart-self`, `handler-tell`, `computed-args`,
/// `overflow`, `unset-param`.
pub const AVOIDABLE: &[&str] = &[
    "decimal",
    "own-name",
    "attending",
    "after-tail-call",
    "several-commands",
    "restart-self",
    "handler-tell",
    "computed-args",
    "overflow",
    "unset-param",
];

struct Gen<'a> {
    avoid: &'a [String],
    rng: &'a mut Rng,
    cov: &'a mut Coverage,
    /// Variables received so far (fresh names).
    fresh: u32,
    /// Labels of the current plan not declared yet.
    free_labels: Vec<String>,
}

/// What a process may use where it is generated.
#[derive(Clone, Default)]
struct Scope {
    ints: Vec<String>,
    bools: Vec<String>,
    chans: Vec<String>,
    labels: Vec<String>,
    /// Plans this one may call (name, takes a channel).
    callees: Vec<(String, Vec<String>)>,
    /// Other agents it may tell.
    others: Vec<String>,
    /// No commands here.
    no_commands: bool,
    /// A handler's code (its commands reach the body's labels and its own instance).
    handler: bool,
    depth: u32,
}

const BELIEFS: &str =
    "belief done(n: Int)\n  belief flag(b: Bool)\n  belief tag(s: String)\n  belief alarm(n: Int)";

impl Gen<'_> {
    fn ok(&self, what: &str) -> bool {
        !self.avoid.iter().any(|a| a == what)
    }

    fn hit(&mut self, c: &'static str) {
        *self.cov.entry(c).or_default() += 1;
    }

    fn small(&mut self) -> i64 {
        self.rng.below(4) as i64
    }

    /// An Int expression over the scope.
    fn int_expr(&mut self, s: &Scope, depth: u32) -> String {
        let r = self.rng.below(if depth == 0 { 3 } else { 9 });
        match r {
            0 | 1 => self.small().to_string(),
            2 if !s.ints.is_empty() => self.rng.pick(&s.ints).clone(),
            2 => "1".into(),
            3 => {
                self.hit("expr:+ - * / %");
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                let a = self.int_expr(s, depth - 1);
                let b = if op == "/" || op == "%" {
                    (1 + self.small()).to_string()
                } else {
                    self.int_expr(s, depth - 1)
                };
                format!("({a} {op} {b})")
            }
            4 => {
                self.hit("expr:chain");
                let a = self.int_expr(s, depth - 1);
                let b = self.int_expr(s, depth - 1);
                format!("({a} + 1 - {b})")
            }
            5 if self.rng.pct(2) && self.ok("overflow") => "9223372036854775807 + 1".into(),
            5 => format!("-{}", self.small()),
            _ => self.small().to_string(),
        }
    }

    fn bool_expr(&mut self, s: &Scope) -> String {
        match self.rng.below(5) {
            0 => self.rng.pick(&["true", "false"]).to_string(),
            1 if !s.bools.is_empty() => {
                self.hit("expr:¬");
                format!("¬ {}", self.rng.pick(&s.bools))
            }
            1 | 2 if !s.bools.is_empty() => self.rng.pick(&s.bools).clone(),
            _ => {
                self.hit("expr:comparison");
                let op = *self.rng.pick(&["=", "≠", "<", "≤", ">", "≥"]);
                let a = self.int_expr(s, 1);
                let b = self.int_expr(s, 1);
                format!("({a} {op} {b})")
            }
        }
    }

    fn atom(&mut self, s: &Scope) -> String {
        match self.rng.below(5) {
            0 | 1 => format!("done({})", self.int_expr(s, 1)),
            2 => format!("flag({})", self.bool_expr(s)),
            3 => format!("tag({})", self.rng.pick(&["\"a\"", "\"b\""])),
            _ => format!("alarm({})", self.small().min(1)),
        }
    }

    fn command(&mut self, s: &Scope) -> String {
        let mut cmd = *self.rng.pick(&["stop", "resume", "abort", "restart"]);
        if s.handler {
            self.hit("handler:command");
        }
        if !s.labels.is_empty() && self.rng.pct(60) {
            let l = self.rng.pick(&s.labels).clone();
            self.hit(match cmd {
                "stop" => "cmd:stop label",
                "resume" => "cmd:resume label",
                "abort" => "cmd:abort label",
                _ => "cmd:restart label",
            });
            format!("{cmd} {l}")
        } else {
            if cmd == "restart" && !self.ok("restart-self") {
                cmd = "abort";
            }
            self.hit(match cmd {
                "stop" => "cmd:stop self",
                "resume" => "cmd:resume self",
                "abort" => "cmd:abort self",
                _ => "cmd:restart self",
            });
            format!("{cmd} self")
        }
    }

    /// A leaf action.
    fn leaf(&mut self, s: &mut Scope) -> GP {
        match self.rng.below(12) {
            0 => {
                self.hit("proc:SKIP");
                GP::Leaf("SKIP".into())
            }
            1 if self.rng.pct(30) => {
                self.hit("proc:STOP");
                GP::Leaf("STOP".into())
            }
            2..=4 => {
                self.hit("proc:believe");
                GP::Leaf(format!("believe {}", self.atom(s)))
            }
            5 => {
                self.hit("proc:forget");
                GP::Leaf(format!("forget {}", self.atom(s)))
            }
            6 if !s.others.is_empty() => {
                self.hit("proc:tell");
                let j = self.rng.pick(&s.others).clone();
                GP::Leaf(format!("tell {j} {}", self.atom(s)))
            }
            7 | 8 if !s.no_commands => GP::Leaf(self.command(s)),
            9 if !s.chans.is_empty() => {
                self.hit("proc:send");
                let c = self.rng.pick(&s.chans).clone();
                GP::Leaf(format!("{} → {c}", self.int_expr(s, 1)))
            }
            10 if !s.callees.is_empty() => self.call(s, false),
            _ => {
                self.hit("proc:believe");
                GP::Leaf(format!("believe done({})", self.small()))
            }
        }
    }

    fn call(&mut self, s: &Scope, tail: bool) -> GP {
        let (name, params) = self.rng.pick(&s.callees).clone();
        self.hit(if tail { "proc:tail call" } else { "proc:call" });
        let args: Vec<String> = params
            .iter()
            .map(|t| match t.as_str() {
                "Int" => self.int_expr(s, 1),
                "Bool" => self.bool_expr(s),
                _ => {
                    self.hit("proc:call with channel");
                    self.rng.pick(&s.chans).clone()
                }
            })
            .collect();
        GP::Leaf(format!("{name}({})", args.join(", ")))
    }

    /// A process; `tail`: in tail position of a plan body (a call there is a tail call).
    fn proc(&mut self, s: &mut Scope, tail: bool) -> GP {
        if s.depth == 0 {
            return self.leaf(s);
        }
        s.depth -= 1;
        let p = match self.rng.below(14) {
            0..=3 => {
                self.hit("proc:;");
                let n = 2 + self.rng.below(3);
                let mut v = Vec::new();
                let mut inner = s.clone();
                for i in 0..n {
                    let last = i + 1 == n;
                    if !inner.chans.is_empty() && self.rng.pct(25) && !last {
                        self.hit("proc:receive");
                        self.fresh += 1;
                        let x = format!("x{}", self.fresh);
                        let c = self.rng.pick(&inner.chans).clone();
                        v.push(GP::Leaf(format!("{x} ← {c}")));
                        inner.ints.push(x);
                        continue;
                    }
                    if last && tail && !inner.callees.is_empty() && self.rng.pct(30) {
                        v.push(self.call(&inner, true));
                    } else {
                        v.push(self.proc(&mut inner, tail && last));
                    }
                }
                GP::Seq(v)
            }
            4 | 5 => {
                self.hit("proc:‖");
                let n = 2 + self.rng.below(2);
                let mut v = Vec::new();
                for _ in 0..n {
                    let mut inner = s.clone();
                    let x = self.proc(&mut inner, false);
                    if matches!(x, GP::Par(_)) {
                        self.hit("proc:nested ‖");
                    }
                    v.push(x);
                }
                // Communication partners, so that channels are used both ways.
                if !s.chans.is_empty() && self.rng.pct(60) {
                    let c = self.rng.pick(&s.chans).clone();
                    self.hit("proc:receive");
                    self.hit("proc:send");
                    self.fresh += 1;
                    let x = format!("y{}", self.fresh);
                    v.push(GP::Seq(vec![
                        GP::Leaf(format!("{} → {c}", self.small())),
                        self.leaf(s),
                    ]));
                    let mut inner = s.clone();
                    inner.ints.push(x.clone());
                    let after = self.proc(&mut inner, false);
                    v.push(GP::Seq(vec![GP::Leaf(format!("{x} ← {c}")), after]));
                }
                GP::Par(v)
            }
            6 => {
                self.hit("proc:□");
                let n = 2 + self.rng.below(2);
                let v = (0..n).map(|_| self.proc(s, tail)).collect();
                GP::Choice(v)
            }
            7 => {
                self.hit("proc:△");
                let a = self.proc(s, false);
                let b = self.proc(s, false);
                GP::Intr(Box::new(a), Box::new(b))
            }
            8 if !self.free_labels.is_empty() => {
                self.hit("proc:label");
                // Labels are declared once per plan: take one of the plan's.
                let i = self.rng.below(self.free_labels.len());
                let l = self.free_labels.remove(i);
                let b = self.proc(s, false);
                GP::Label(l, Box::new(b))
            }
            9 => {
                if !s.ints.is_empty() && self.rng.pct(50) {
                    self.hit("proc:match Int");
                    let e = self.int_expr(s, 1);
                    let arms = (0..1 + self.rng.below(2))
                        .map(|i| (i.to_string(), self.proc(s, tail)))
                        .collect();
                    self.hit("proc:match other");
                    let o = self.proc(s, tail);
                    GP::Match(e, arms, Some(Box::new(o)))
                } else {
                    self.hit("proc:match Bool");
                    let e = self.bool_expr(s);
                    let a = self.proc(s, tail);
                    if self.rng.pct(50) {
                        let b = self.proc(s, tail);
                        GP::Match(e, vec![("true".into(), a), ("false".into(), b)], None)
                    } else {
                        self.hit("proc:match other");
                        let b = self.proc(s, tail);
                        GP::Match(e, vec![("true".into(), a)], Some(Box::new(b)))
                    }
                }
            }
            10 if !s.no_commands && self.ok("several-commands") => {
                self.hit("cmd:several in one step");
                // Several commands landing in one step: two branches that both go on after the
                // same communication.
                if let Some(c) = s.chans.first().cloned() {
                    self.fresh += 1;
                    let x = format!("z{}", self.fresh);
                    let c1 = self.command(s);
                    let c2 = self.command(s);
                    let after = self.leaf(s);
                    GP::Par(vec![
                        GP::Seq(vec![GP::Leaf(format!("1 → {c}")), GP::Leaf(c1)]),
                        GP::Seq(vec![GP::Leaf(format!("{x} ← {c}")), GP::Leaf(c2), after]),
                    ])
                } else {
                    let c1 = self.command(s);
                    let after = self.leaf(s);
                    GP::Seq(vec![GP::Leaf(c1), after])
                }
            }
            _ => self.leaf(s),
        };
        s.depth += 1;
        p
    }

    fn cond_atom(&mut self, me: &str, other: Option<&str>, params: &[(String, String)]) -> String {
        match self.rng.below(20) {
            0..=3 => {
                self.hit("cond:B(self)");
                format!("B(self) done({})", self.small())
            }
            4 => {
                self.hit("cond:B(self)");
                self.hit("cond:bound variable");
                let op = *self.rng.pick(&["=", "≠", "<", "≤", ">", "≥"]);
                self.hit(match op {
                    "=" => "cond:=",
                    "≠" => "cond:≠",
                    "<" => "cond:<",
                    "≤" => "cond:≤",
                    ">" => "cond:>",
                    _ => "cond:≥",
                });
                match self.rng.below(4) {
                    0 => {
                        self.hit("cond:+ - chain");
                        format!("(B(self) done(n) ∧ n + 1 - 1 {op} {})", self.small())
                    }
                    1 => {
                        self.hit("cond:* / %");
                        let o2 = *self.rng.pick(&["*", "/", "%"]);
                        format!("(B(self) done(n) ∧ n {o2} 2 {op} {})", self.small())
                    }
                    2 => {
                        self.hit("cond:unary -");
                        format!("(B(self) done(n) ∧ -n {op} -{})", self.small())
                    }
                    _ => format!("(B(self) done(n) ∧ n {op} {})", self.small()),
                }
            }
            5 if self.ok("own-name") => {
                self.hit("cond:B(Me) own name");
                format!("B({me}) done({})", self.small())
            }
            6 if other.is_some() => {
                self.hit("cond:B(other)");
                format!("B({}) done({})", other.unwrap_or("self"), self.small())
            }
            7 => {
                self.hit("cond:computed pattern");
                format!("B(self) done({} + 1)", self.small())
            }
            8 => {
                self.hit("cond:wildcard");
                "B(self) done(_)".into()
            }
            9 => {
                self.hit("cond:Bool name");
                "(B(self) flag(v) ∧ v)".into()
            }
            // Rarely: a decimal in a condition is refused (HA0035), so a project holding one
            // is only checked, never compared.
            10 if self.ok("decimal") && self.rng.below(8) == 0 => {
                self.hit("cond:decimal");
                let a = *self.rng.pick(&["0.1", "0.2", "1.5"]);
                let b = *self.rng.pick(&["0.1", "0.2", "1.5"]);
                format!("{a} = {b}")
            }
            11 => {
                self.hit("cond:string");
                format!("B(self) tag({})", self.rng.pick(&["\"a\"", "\"b\""]))
            }
            12 => {
                self.hit("cond:true/false");
                self.rng.pick(&["true", "false"]).to_string()
            }
            13 if !params.is_empty() => {
                self.hit("cond:param");
                let (n, t) = self.rng.pick(params).clone();
                match t.as_str() {
                    "Int" => format!("B(self) done({n})"),
                    "Bool" => format!("B(self) flag({n})"),
                    _ => format!("B(self) tag({n})"),
                }
            }
            14 | 15 if self.ok("attending") => {
                self.hit("cond:attending");
                format!("attending {}", self.rng.pick(&["Calm", "Alarmed"]))
            }
            _ => {
                self.hit("cond:B(self)");
                format!("B(self) flag({})", self.rng.pick(&["true", "false"]))
            }
        }
    }

    fn cond(
        &mut self,
        me: &str,
        other: Option<&str>,
        params: &[(String, String)],
        d: u32,
    ) -> String {
        if d == 0 {
            return self.cond_atom(me, other, params);
        }
        match self.rng.below(6) {
            0 => {
                self.hit("cond:∧");
                let a = self.cond(me, other, params, d - 1);
                let b = self.cond(me, other, params, d - 1);
                format!("({a} ∧ {b})")
            }
            1 => {
                self.hit("cond:∨");
                let a = self.cond(me, other, params, d - 1);
                let b = self.cond(me, other, params, d - 1);
                format!("({a} ∨ {b})")
            }
            2 => {
                self.hit("cond:¬");
                let a = self.cond_atom(me, other, params);
                if a.contains("done(n)") || a.contains("flag(v)") {
                    a
                } else {
                    format!("¬ {a}")
                }
            }
            _ => self.cond_atom(me, other, params),
        }
    }

    /// A binding argument of type `ty` over the agent's parameters.
    fn binding_arg(&mut self, ty: &str, params: &[(String, String)]) -> String {
        let of = |t: &str| -> Vec<String> {
            params
                .iter()
                .filter(|(_, pt)| pt == t)
                .map(|(n, _)| n.clone())
                .collect()
        };
        let ints = of("Int");
        let bools = of("Bool");
        match ty {
            "Int" => match self.rng.below(5) {
                0 => {
                    self.hit("arg:literal");
                    self.small().to_string()
                }
                1 if !ints.is_empty() => {
                    self.hit("arg:param");
                    self.rng.pick(&ints).clone()
                }
                2 if self.ok("computed-args") => {
                    self.hit("arg:1 + 1");
                    format!("{} + {}", self.small(), self.small())
                }
                3 if !ints.is_empty() && self.ok("computed-args") => {
                    self.hit("arg:-t");
                    format!("-{}", self.rng.pick(&ints))
                }
                _ => {
                    self.hit("arg:literal");
                    self.small().to_string()
                }
            },
            "Bool" => match self.rng.below(4) {
                0 => {
                    self.hit("arg:literal");
                    self.rng.pick(&["true", "false"]).to_string()
                }
                1 if !bools.is_empty() && self.ok("computed-args") => {
                    self.hit("arg:¬b");
                    format!("¬ {}", self.rng.pick(&bools))
                }
                2 if !bools.is_empty() => {
                    self.hit("arg:param");
                    self.rng.pick(&bools).clone()
                }
                _ if self.ok("computed-args") => {
                    self.hit("arg:a < b");
                    let a = ints.first().cloned().unwrap_or_else(|| "1".into());
                    format!("{a} < {}", self.small())
                }
                _ => {
                    self.hit("arg:literal");
                    "true".into()
                }
            },
            _ => {
                self.hit("arg:string");
                "\"a\"".into()
            }
        }
    }
}

/// Generates one project from a seed, counting its constructs in `cov`.
pub fn project(seed: u64, cov: &mut Coverage, avoid: &[String]) -> Project {
    let mut rng = Rng::new(seed);
    let mut g = Gen {
        avoid,
        rng: &mut rng,
        cov,
        fresh: 0,
        free_labels: Vec::new(),
    };
    let two = g.rng.pct(35);
    let names: Vec<&str> = if two {
        vec!["Alpha", "Beta"]
    } else {
        vec!["Alpha"]
    };
    if two {
        g.hit("agents:two telling each other");
    }
    let mut agents = Vec::new();
    let mut files = Vec::new();
    let mut params_given = Vec::new();
    for (ai, me) in names.iter().enumerate() {
        let other = if two { Some(names[1 - ai]) } else { None };
        // Agent parameters.
        let mut aparams: Vec<(String, String)> = Vec::new();
        if g.rng.pct(40) {
            g.hit("agent:param");
            aparams.push(("t".into(), "Int".into()));
            if g.rng.pct(50) {
                aparams.push(("b".into(), "Bool".into()));
            }
            for (n, ty) in &aparams {
                if g.rng.pct(8) && g.ok("unset-param") {
                    g.hit("agent:param unset");
                    continue;
                }
                let v = match ty.as_str() {
                    "Int" => g.rng.below(4).to_string(),
                    _ => g.rng.pick(&["true", "false"]).to_string(),
                };
                params_given.push(format!("{me}.{n}={v}"));
            }
        }
        // Plans: a file per agent. Plan 0 is bound; later plans are callees.
        let stem = format!("P{me}");
        let nplans = 1 + g.rng.below(3);
        let mut plans: Vec<GPlan> = Vec::new();
        let mut sigs: Vec<(String, Vec<String>)> = Vec::new();
        for i in 0..nplans {
            let name = format!("{}{}", ["Main", "Work", "Help", "Loop"][i.min(3)], i);
            let mut params = Vec::new();
            if i == 0 {
                for k in 0..g.rng.below(3) {
                    let t = *g.rng.pick(&["Int", "Bool", "Int", "String"]);
                    params.push((format!("p{k}"), t.to_string()));
                }
            } else {
                if g.rng.pct(50) {
                    params.push(("k".into(), "Int".into()));
                }
                if g.rng.pct(50) {
                    params.push(("c".into(), "chan Int".into()));
                }
            }
            sigs.push((
                name.clone(),
                params
                    .iter()
                    .map(|(_, t)| t.replace("chan Int", "chan"))
                    .collect(),
            ));
            plans.push(GPlan {
                name,
                params,
                agent: me.to_string(),
                chans: Vec::new(),
                body: GP::Leaf("SKIP".into()),
                handlers: Vec::new(),
            });
        }
        for i in 0..nplans {
            let mut s = Scope {
                depth: 1 + g.rng.below(2) as u32,
                ..Scope::default()
            };
            for (n, t) in &plans[i].params {
                match t.as_str() {
                    "Int" => s.ints.push(n.clone()),
                    "Bool" => s.bools.push(n.clone()),
                    "chan Int" => s.chans.push(n.clone()),
                    _ => {}
                }
            }
            if s.chans.is_empty() || g.rng.pct(30) {
                plans[i].chans.push(("ch".into(), "Int".into()));
                s.chans.push("ch".into());
            }
            for l in 0..g.rng.below(3) {
                s.labels.push(format!("l{l}"));
            }
            g.free_labels = s.labels.clone();
            s.others = other.map(|o| vec![o.to_string()]).unwrap_or_default();
            s.callees = sigs[i + 1..].to_vec();
            let mut body = g.proc(&mut s, true);
            // A command on an undeclared label is refused: declare every label once.
            let mut missing = std::mem::take(&mut g.free_labels);
            missing.sort();
            for l in missing {
                g.hit("proc:label");
                body = GP::Par(vec![body, GP::Label(l, Box::new(GP::Leaf("SKIP".into())))]);
            }
            // Tail recursion: a plan with a counter calls itself in tail position.
            let recursive = i > 0 && plans[i].params.iter().any(|(n, _)| n == "k") && g.rng.pct(50);
            if recursive {
                g.hit("proc:tail recursion");
                g.hit("proc:tail call");
                let args: Vec<String> = plans[i]
                    .params
                    .iter()
                    .map(|(n, _)| if n == "k" { "k - 1".into() } else { n.clone() })
                    .collect();
                body = GP::Match(
                    "k".into(),
                    vec![("0".into(), GP::Leaf("SKIP".into()))],
                    Some(Box::new(GP::Seq(vec![
                        body,
                        GP::Leaf(format!("{}({})", plans[i].name, args.join(", "))),
                    ]))),
                );
            } else if i + 1 < nplans
                && sigs[i + 1].1.iter().all(|t| t == "Int")
                && g.rng.pct(25)
                && g.ok("after-tail-call")
            {
                // Commands right after a tail call: the callee starts with them.
                g.hit("cmd:after tail call");
                g.hit("proc:tail call");
                let (callee, params) = sigs[i + 1].clone();
                let args: Vec<String> = params.iter().map(|_| "1".to_string()).collect();
                body = GP::Seq(vec![
                    body,
                    GP::Leaf(format!("{callee}({})", args.join(", "))),
                ]);
                let c = g.command(&Scope::default());
                let rest = g.leaf(&mut Scope::default());
                plans[i + 1].body = GP::Seq(vec![GP::Leaf(c), rest, GP::Leaf("SKIP".into())]);
            }
            if let GP::Seq(head) = &mut plans[i].body {
                // The commands put at this plan's start by its caller stay first.
                head.pop();
                head.push(body);
            } else {
                plans[i].body = body;
            }
            for kind in ["stop", "resume", "abort"] {
                if g.rng.pct(25) {
                    g.hit(match kind {
                        "stop" => "handler:on stop",
                        "resume" => "handler:on resume",
                        _ => "handler:on abort",
                    });
                    // A handler sees its instance's parameters and channels: one that
                    // communicates runs over several steps.
                    let chans = if g.rng.pct(40) {
                        s.chans.clone()
                    } else {
                        Vec::new()
                    };
                    let mut hs = Scope {
                        depth: 1 + chans.len().min(1) as u32,
                        others: s.others.clone(),
                        labels: s.labels.clone(),
                        chans,
                        handler: true,
                        ..Scope::default()
                    };
                    let h = if !hs.others.is_empty() && g.rng.pct(30) && g.ok("handler-tell") {
                        g.hit("handler:tell");
                        if kind != "abort" {
                            g.hit("handler:tell in on stop or on resume");
                        }
                        let tell = GP::Leaf(format!("tell {} done(1)", hs.others[0]));
                        if hs.chans.is_empty() || g.rng.pct(50) {
                            tell
                        } else {
                            // After a rendezvous of its own: the tell runs in a later step.
                            g.hit("handler:communicates");
                            let c = hs.chans[0].clone();
                            let x = format!("h{}", g.fresh);
                            g.fresh += 1;
                            GP::Par(vec![
                                GP::Leaf(format!("1 → {c}")),
                                GP::Seq(vec![GP::Leaf(format!("{x} ← {c}")), tell]),
                            ])
                        }
                    } else {
                        let h = g.proc(&mut hs, false);
                        if !hs.chans.is_empty() {
                            g.hit("handler:communicates");
                        }
                        h
                    };
                    plans[i].handlers.push((kind.to_string(), h));
                }
            }
        }
        // Members.
        let mut members = vec![BELIEFS.to_string()];
        let binding_args: Vec<String> = plans[0]
            .params
            .iter()
            .map(|(_, t)| g.binding_arg(t, &aparams))
            .collect();
        let args = if binding_args.is_empty() {
            String::new()
        } else {
            format!("({})", binding_args.join(", "))
        };
        members.push(format!("plan Run ↦ {stem}.{}{args}", plans[0].name));
        // A second binding, of a later plan that takes no channel, serving some desires too.
        let aux = plans
            .iter()
            .skip(1)
            .find(|p| p.params.iter().all(|(_, t)| t == "Int"))
            .map(|p| (p.name.clone(), p.params.len()));
        let aux = match aux {
            Some((name, n)) if g.rng.pct(40) => {
                g.hit("agent:two bindings");
                let args: Vec<String> = (0..n).map(|_| g.binding_arg("Int", &aparams)).collect();
                let args = if args.is_empty() {
                    String::new()
                } else {
                    format!("({})", args.join(", "))
                };
                members.push(format!("plan Aux ↦ {stem}.{name}{args}"));
                true
            }
            _ => false,
        };
        let ndesires = 1 + g.rng.below(2);
        if ndesires == 2 {
            g.hit("agent:two desires");
        }
        // Per desire: its priority, and whether Run and Aux serve it.
        let mut served: Vec<(i64, bool, bool)> = Vec::new();
        let mut impossible = false;
        for d in 0..ndesires {
            let prio = if g.rng.pct(30) {
                g.hit("agent:priority");
                *g.rng.pick(&[" priority 1", " priority 2"])
            } else {
                ""
            };
            let by = match (aux, g.rng.below(3)) {
                (true, 0) => "Aux",
                (true, 1) => {
                    g.hit("agent:desire served by two bindings");
                    "Run, Aux"
                }
                _ => "Run",
            };
            members.push(format!("desire D{d}{prio} reachable by [{by}]"));
            let p = prio.trim_start_matches(" priority ").parse().unwrap_or(0);
            served.push((p, by.contains("Run"), by.contains("Aux")));
            let c = g.cond(me, other, &aparams, 2);
            members.push(format!("achieved D{d} when {c}"));
            if g.rng.pct(30) {
                g.hit("agent:impossible");
                impossible = true;
                members.push(format!(
                    "impossible D{d} when B(self) alarm(1) because \"alarm\""
                ));
            }
            if g.rng.pct(40) {
                g.hit("agent:intend");
                let first = by.split(", ").next().unwrap_or("Run");
                members.push(format!("intend {first} for D{d} when ¬ B(self) done(3)"));
            }
        }
        let commit = *g.rng.pick(&["blind", "single_minded", "open_minded"]);
        g.hit(match commit {
            "blind" => "agent:commit blind",
            "single_minded" => "agent:commit single_minded",
            _ => "agent:commit open_minded",
        });
        members.push(format!("commit {commit}"));
        if commit == "single_minded" && impossible {
            g.hit("theorem:released (single_minded, constant atom)");
        }
        // The runtime can stop a binding when a desire has a higher priority than the lowest
        // of those it serves; a stop or resume handler in the agent's plans (not necessarily
        // in that binding's network) makes `_stoppable` likely.
        let top = served.iter().map(|d| d.0).max().unwrap_or(0);
        let lowest = |aux: bool| {
            served
                .iter()
                .filter(|d| if aux { d.2 } else { d.1 })
                .map(|d| d.0)
                .min()
        };
        let handled = plans
            .iter()
            .any(|p| p.handlers.iter().any(|(k, _)| k == "stop" || k == "resume"));
        if handled
            && [lowest(false), lowest(true)]
                .iter()
                .flatten()
                .any(|&l| l < top)
        {
            g.hit("theorem:stoppable (a higher priority, a stop or resume handler)");
        }
        members.push("attention Calm initially".into());
        members.push("attention Alarmed".into());
        if g.rng.pct(50) {
            g.hit("agent:attend rule");
            let c = g.cond(me, other, &[], 1);
            let c = if c.contains("attending") {
                "B(self) alarm(1)".to_string()
            } else {
                c
            };
            members.push(format!("when {c} attend Alarmed"));
        }
        // Assertions (issue 34), drawn last so that the rest of the agent is as before.
        if g.rng.pct(60) {
            for k in 0..1 + g.rng.below(2) {
                let mut c = [0, 1].map(|_| g.cond(me, other, &aparams, 1));
                if g.rng.pct(25) {
                    let (hit, test) = match g.rng.below(2) {
                        0 => (
                            "assert:desires",
                            format!("desires D{}", g.rng.below(ndesires)),
                        ),
                        _ => ("assert:intends", "intends Run".to_string()),
                    };
                    g.hit(hit);
                    c[0] = format!("({} ∨ {test})", c[0]);
                }
                let fair = |g: &mut Gen| match g.rng.pct(40) {
                    true => {
                        g.hit("assert:under weak fairness");
                        " under weak fairness"
                    }
                    false => "",
                };
                let [a, b] = &c;
                let line = match g.rng.below(5) {
                    0 => {
                        g.hit("assert:always");
                        format!("assert p{k}: always {a}")
                    }
                    1 => {
                        g.hit("assert:never");
                        format!("assert p{k}: never {a}")
                    }
                    2 => {
                        g.hit("assert:precedes");
                        format!("assert p{k}: {a} precedes {b}")
                    }
                    3 => {
                        g.hit("assert:eventually");
                        format!("assert p{k}: eventually {a}{}", fair(&mut g))
                    }
                    _ => {
                        g.hit("assert:leads to");
                        format!("assert p{k}: {a} leads to {b}{}", fair(&mut g))
                    }
                };
                members.push(line);
            }
        }
        for m in members.iter_mut().filter(|m| m.starts_with("desire ")) {
            if g.rng.pct(25) {
                g.hit("agent:desire under weak fairness");
                m.push_str(" under weak fairness");
            }
        }
        agents.push(GAgent {
            name: me.to_string(),
            params: aparams,
            members,
        });
        files.push((stem, plans));
    }
    Project {
        agents,
        files,
        params: params_given,
    }
}
