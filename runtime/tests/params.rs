//! A host gives agent parameters their values through the frontend's API, as `--param` does
//! (examples/agent-parameters).

use hilbert_frontend::{ParamSpec, check_project_params, params_read, project};
use hilbert_runtime::{Event, Hosts, Reconsideration, Scenario, System};

#[test]
fn a_host_lowers_the_agent_with_its_parameter_values_and_runs_it() {
    let dir = format!(
        "{}/../examples/agent-parameters",
        env!("CARGO_MANIFEST_DIR")
    );
    let loaded = project::load(&[dir]).unwrap();
    let spec = ParamSpec::parse("target=2").unwrap();
    let checked = check_project_params(&loaded, Default::default(), &[spec]).unwrap();
    let ir = checked.ir.clone().expect("checks");
    assert_eq!(
        ir.agents[0].args,
        [Some(hilbert_certificates::ir::Literal::Int(2))]
    );
    assert!(params_read(&checked.program, &ir, "Counter").is_empty());
    let mut system = System::new(
        &ir,
        &["Counter".to_string()],
        Reconsideration::Cautious,
        Scenario {
            cycles: 5,
            ..Scenario::default()
        },
        Hosts::new(),
    )
    .unwrap();
    let journal = system.run();
    let release = journal
        .iter()
        .find_map(|e| match &e.event {
            Event::Release { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .expect("released");
    assert_eq!(release, "achieved", "{journal:#?}");
    // Without a value, the parameter is reported as read, not guessed.
    let unset = check_project_params(&loaded, Default::default(), &[]).unwrap();
    let ir = unset.ir.expect("checks");
    assert_eq!(params_read(&unset.program, &ir, "Counter"), ["target"]);
}
