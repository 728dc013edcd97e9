//! The Hilbert runtime: runs agents from the very IR that was proved. It keeps the intention set
//! as host state, applies the commitment law, drives the plan commands, journals every step with
//! its reason for replay, and reconsiders as often as its policy says.
//!
//! A host registers Rust functions for `plan P ↦ host.name` bindings, pushes percepts through
//! the scenario, runs the agent and reads the journal:
//!
//! ```
//! use hilbert_frontend::{check_project, project};
//! use hilbert_runtime::{AgentRun, Event, HostContext, HostStatus, Hosts, Reconsideration, Scenario, ScenarioEvent};
//!
//! let agent = "agent Kettle() : Agency {
//!   belief hot(level: Int)
//!   belief boiled(done: Int)
//!   desire Tea reachable by [Boil]
//!   commit single_minded
//!   intend Boil for Tea when B(self) hot(1)
//!   achieved Tea when B(self) boiled(1)
//!   plan Boil ↦ host.boil
//! }";
//! let mut loaded = project::Loaded::default();
//! project::add_bytes(&mut loaded, "Kettle.ha".into(), agent.as_bytes().to_vec());
//! let checked = check_project(&loaded);
//! let ir = checked.ir.expect("the project checks");
//!
//! // The host plan: two steps, then the water has boiled.
//! fn boil(ctx: &mut HostContext) -> HostStatus {
//!     if ctx.steps < 1 {
//!         HostStatus::Running
//!     } else {
//!         ctx.believe("boiled(1)").unwrap();
//!         HostStatus::Finished
//!     }
//! }
//! let mut hosts = Hosts::new();
//! hosts.register("boil", boil);
//!
//! // A percept from a sensor at cycle 1.
//! let scenario = Scenario {
//!     events: vec![ScenarioEvent { cycle: 1, agent: None, believe: vec!["hot(1)".into()], forget: vec![], drop: vec![] }],
//!     ..Scenario::default()
//! };
//! let mut run = AgentRun::new(&ir, "Kettle", Reconsideration::Cautious, scenario, hosts).unwrap();
//! run.run();
//! let released: Vec<&str> = run.journal().iter().filter_map(|e| match &e.event {
//!     Event::Release { reason, .. } => Some(reason.as_str()),
//!     _ => None,
//! }).collect();
//! assert_eq!(released, ["achieved"]);
//! ```

pub mod agent;
pub mod deliberation;
pub mod journal;
pub mod reconsideration;
pub mod scenario;

pub use agent::{
    AgentRun, Ended, HostContext, HostFn, HostStatus, Hosts, Intention, RunError, Status, System,
};
pub use journal::{Entry, Event, Header};
pub use reconsideration::Reconsideration;
pub use scenario::{ParamValue, Scenario, ScenarioEvent};
