//! The check diagnostics: HA0020–HA0099 (agents), HK0020–HK0049 (plans), HB0020–HB0049
//! (values). HK0050–HK0099 are reserved for lowering and obligations. Codes are never reused or
//! renumbered; each has a `docs/diagnostics/<CODE>.md` with a failing example and its fix.

use crate::diagnostic::{Code, Severity};
use crate::source::Dialect::{Agent as A, Plans as K, Values as B};

macro_rules! check_codes {
    ($($(#[$doc:meta])* $name:ident = $d:ident $n:literal $sev:ident;)*) => {
        $( $(#[$doc])* pub const $name: Code = Code::new($d, $n); )*
        /// Every check code, in numeric order within each dialect.
        pub const ALL: &[Code] = &[$($name),*];
        /// The severity each check code is reported with.
        pub fn severity(code: Code) -> Option<Severity> {
            $( if code == $name { return Some(Severity::$sev); } )*
            None
        }
    };
}

check_codes! {
    /// Two agents with the same name in the project.
    DUPLICATE_AGENT = A 20 Error;
    /// Two beliefs, desires, attentions, values or plan bindings with one name in an agent.
    DUPLICATE_MEMBER = A 21 Error;
    /// A belief field or agent parameter whose type is not `Int`, `String` or `Bool`.
    BAD_FIELD_TYPE = A 22 Error;
    /// A desire with no `achieved` rule: its intention could never be released.
    NO_ACHIEVED = A 23 Error;
    /// `intend`, `achieved` or `impossible` naming a desire the agent does not declare.
    UNKNOWN_DESIRE = A 24 Error;
    /// `intend P for D` where `P` is not in `D`'s `reachable by` (realism).
    INTEND_NOT_DESIRED = A 25 Error;
    /// A plan named in `reachable by`, `intend` or `reward` with no `plan P ↦ …` binding.
    UNBOUND_PLAN = A 26 Error;
    /// An agent with no `commit` strategy.
    NO_COMMIT = A 27 Error;
    /// An agent with several `commit` strategies.
    SEVERAL_COMMITS = A 28 Error;
    /// A commitment strategy other than `blind`, `single_minded` or `open_minded`.
    UNKNOWN_STRATEGY = A 29 Error;
    /// `attend A` or `attending A` where `A` is not a declared attention.
    UNKNOWN_ATTENTION = A 30 Error;
    /// An agent whose attentions have no `initially`.
    NO_INITIAL_ATTENTION = A 31 Error;
    /// An agent with several attentions marked `initially`.
    SEVERAL_INITIAL_ATTENTIONS = A 32 Error;
    /// A condition naming a belief the agent (or the agent in `B(j)`) does not declare.
    UNKNOWN_BELIEF = A 33 Error;
    /// A belief pattern with the wrong number of arguments.
    BELIEF_ARITY = A 34 Error;
    /// A type mismatch in a condition or value.
    TYPE_MISMATCH = A 35 Error;
    /// A condition that is not boolean.
    NOT_BOOLEAN = A 36 Error;
    /// `B(j) …` where `j` is neither `self` nor a declared agent.
    UNKNOWN_AGENT = A 37 Error;
    /// A variable in a comparison that no positive belief pattern binds.
    UNBOUND_VARIABLE = A 38 Error;
    /// `impossible` without a non-empty `because`.
    NO_REASON = A 39 Error;
    /// A negative `priority`.
    NEGATIVE_PRIORITY = A 40 Error;
    /// `plan P ↦ File.Plan` where no `.hk` file has that stem.
    UNKNOWN_PLAN_FILE = A 41 Error;
    /// `plan P ↦ File.Plan` where the file declares no such plan.
    UNKNOWN_PLAN = A 42 Error;
    /// A binding whose argument count differs from the plan's parameters.
    BINDING_ARITY = A 43 Error;
    /// A bound (started) plan with a channel parameter.
    STARTED_PLAN_TAKES_CHANNEL = A 44 Error;
    /// A bound plan that belongs to another agent.
    PLAN_OF_OTHER_AGENT = A 45 Error;
    /// `plan P ↦ host.name`: the compiler cannot explore host code (warning).
    HOST_PLAN = A 46 Warning;
    /// A name in a `value` definition that is neither a value nor an agent parameter.
    UNKNOWN_VALUE_NAME = A 47 Error;
    /// `value` definitions that depend on each other in a cycle.
    VALUE_CYCLE = A 48 Error;
    /// A `value` definition that is not arithmetic over numbers.
    VALUE_NOT_NUMERIC = A 49 Error;
    /// A belief never mentioned anywhere (warning).
    UNUSED_BELIEF = A 50 Warning;
    /// An attention never initial, attended or tested (warning).
    UNUSED_ATTENTION = A 51 Warning;
    /// A condition no state can satisfy (warning).
    UNSATISFIABLE_CONDITION = A 52 Warning;
    /// An `intend` whose condition implies the desire is already achieved (warning).
    INTEND_ALREADY_ACHIEVED = A 53 Warning;
    /// A binding argument that is not a constant of the parameter's type.
    BAD_BINDING_ARGUMENT = A 54 Error;
    /// `desires D` or `intends P` in a rule's condition (only an `assert` may read them).
    MENTAL_OUTSIDE_ASSERT = A 62 Error;
    /// `under weak fairness` on `always`, `never` or `precedes`, which fairness does not change.
    FAIRNESS_ON_SAFETY = A 63 Error;
    /// `under F fairness` where `F` is not `weak`.
    UNKNOWN_FAIRNESS = A 64 Error;

    /// Two `.hk` files with the same stem: `File.Plan` would be ambiguous.
    DUPLICATE_PLAN_FILE = K 20 Error;
    /// A plan whose `: Agent` is missing or not a declared agent.
    UNKNOWN_PLAN_AGENT = K 21 Error;
    /// Two plans with one name in a file.
    DUPLICATE_PLAN = K 22 Error;
    /// Two parameters or channels with one name in a plan.
    DUPLICATE_PARAM = K 23 Error;
    /// A plan with no body.
    NO_BODY = K 24 Error;
    /// Two handlers for the same command.
    DUPLICATE_HANDLER = K 25 Error;
    /// A parameter or channel type that is not `Int`, `String`, `Bool` or `chan T`.
    BAD_PARAM_TYPE = K 26 Error;
    /// A send or receive on something that is not a channel, or a channel used as a value.
    NOT_A_CHANNEL = K 27 Error;
    /// A name that is not in scope.
    NOT_IN_SCOPE = K 28 Error;
    /// A type mismatch in a plan.
    PLAN_TYPE_MISMATCH = K 29 Error;
    /// A call of a plan the file does not declare.
    UNKNOWN_CALLEE = K 30 Error;
    /// A call with the wrong number of arguments.
    CALL_ARITY = K 31 Error;
    /// A call passing a value for a channel parameter, or a channel for a value parameter.
    CALL_CHANNEL_ARGUMENT = K 32 Error;
    /// A call of a plan that belongs to another agent.
    CALLEE_OF_OTHER_AGENT = K 33 Error;
    /// Two labels with one name in a plan.
    DUPLICATE_LABEL = K 34 Error;
    /// `stop`/`resume`/`abort`/`restart` of a label the plan does not have.
    UNKNOWN_LABEL = K 35 Error;
    /// `believe`, `forget` or `tell` of a belief the agent does not declare.
    UNDECLARED_BELIEF = K 36 Error;
    /// `believe`, `forget` or `tell` with the wrong number of arguments.
    ATOM_ARITY = K 37 Error;
    /// `tell j …` where `j` is not another declared agent.
    BAD_TELL_TARGET = K 38 Error;
    /// A `match` arm repeated (warning).
    DUPLICATE_ARM = K 39 Warning;
    /// A `match` on a constant that no arm matches, without `other`.
    NO_MATCHING_ARM = K 40 Error;
    /// An expression a plan cannot evaluate (a belief test, a feature, a function, `_`).
    NOT_A_PLAN_EXPRESSION = K 41 Error;
    /// A parameter or channel never used (warning).
    UNUSED_PARAM = K 42 Warning;
    /// A plan never bound by an agent nor called by another plan (warning).
    UNUSED_PLAN = K 43 Warning;

    /// `values A` where `A` is not a declared agent.
    VALUES_UNKNOWN_AGENT = B 20 Error;
    /// `option P` where `P` is not one of the agent's plan bindings.
    UNKNOWN_OPTION = B 21 Error;
    /// Two options (or two values) with one name in a block.
    DUPLICATE_OPTION = B 22 Error;
    /// A feature `belief.field` that is not an `Int` field of one of the agent's beliefs.
    BAD_FEATURE = B 23 Error;
    /// `learned(P)` where `P` is not one of the agent's plan bindings.
    BAD_LEARNED = B 24 Error;
    /// A function other than `learned`.
    UNKNOWN_FUNCTION = B 25 Error;
    /// Several `policy` lines in a block.
    SEVERAL_POLICIES = B 26 Error;
    /// A policy other than `greedy`, `epsilon_greedy`, `softmax`, `ucb`.
    UNKNOWN_POLICY = B 27 Error;
    /// A policy argument that is unknown, repeated or missing.
    POLICY_ARGUMENT = B 28 Error;
    /// A policy argument outside its range or not a number.
    POLICY_ARGUMENT_RANGE = B 29 Error;
    /// A name in a values expression that is not a value of the block or the agent.
    VALUES_UNKNOWN_NAME = B 30 Error;
    /// A values expression that is not arithmetic over numbers.
    VALUES_NOT_NUMERIC = B 31 Error;
    /// Two `values` blocks for one agent.
    DUPLICATE_VALUES_BLOCK = B 32 Error;
    /// `value` definitions of a block that depend on each other in a cycle.
    VALUES_CYCLE = B 33 Error;
}
