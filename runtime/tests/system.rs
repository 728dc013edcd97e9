//! Agents of one system: what one tells another is believed by the other at its next cycle.

use hilbert_runtime::{Event, Hosts, Reconsideration, Scenario, System};

#[test]
fn a_tell_reaches_the_other_agent_of_the_system() {
    let loaded = hilbert_frontend::project::load(&[concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/tells-twice"
    )
    .to_string()])
    .expect("the example loads");
    let checked = hilbert_frontend::check_project(&loaded);
    let ir = checked.ir.expect("the example checks");
    let names = vec!["Courier".to_string(), "Client".to_string()];
    let mut system = System::new(
        &ir,
        &names,
        Reconsideration::Cautious,
        Scenario::default(),
        Hosts::new(),
    )
    .unwrap();
    let journal = system.run();
    let told = journal
        .iter()
        .find(|e| e.agent == "Client" && matches!(&e.event, Event::Told { from, atom } if from == "Courier" && atom == "delivered(7)"))
        .expect("the client is told");
    let telling = journal
        .iter()
        .find(|e| e.agent == "Courier" && matches!(&e.event, Event::Step { added, .. } if added.iter().any(|a| a == "B(Client) delivered(7)")))
        .expect("the courier tells");
    assert_eq!(told.cycle, telling.cycle + 1);
    // Run alone, the courier's tell reaches nobody.
    let mut alone = System::new(
        &ir,
        &names[..1],
        Reconsideration::Cautious,
        Scenario::default(),
        Hosts::new(),
    )
    .unwrap();
    assert!(
        !alone
            .run()
            .iter()
            .any(|e| matches!(e.event, Event::Told { .. }))
    );
}
