//! `hilbert run` of a scenario, fuzzed: arbitrary bytes read as a scenario file is read (a JSON
//! object, a byte order mark allowed), its `params` given to the lowering of
//! `examples/production-line` as `run` gives them, and every agent of the project run through it
//! for at most 64 rounds. No input may panic, hang or exhaust memory, and the journal of the run
//! reads back as the same entries (`journal::parse` of `journal::to_lines`), as `hilbert replay`
//! reads it. Run from the repository root with `cargo +nightly fuzz run scenario`; seed it with
//! `examples/*/scenarios/*.json`.
#![no_main]

use hilbert_frontend::ParamSpec;
use hilbert_runtime::{Hosts, Reconsideration, Scenario, System, journal};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn loaded() -> &'static hilbert_frontend::project::Loaded {
    static P: OnceLock<hilbert_frontend::project::Loaded> = OnceLock::new();
    P.get_or_init(|| {
        hilbert_frontend::project::load(&["examples/production-line".to_string()])
            .expect("run from the repository root")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&policy, data)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    if !value.is_object() {
        return;
    }
    let Ok(scenario) = serde_json::from_value::<Scenario>(value) else {
        return;
    };
    // The scenario's values as `run` gives them: every NAME before every AGENT.NAME.
    let (all, one): (Vec<_>, Vec<_>) = scenario.params.iter().partition(|(k, _)| !k.contains('.'));
    let Ok(specs) = all
        .into_iter()
        .chain(one)
        .map(|(k, v)| ParamSpec::parse(&format!("{k}={}", v.text())))
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    let Ok((_, Ok((ir, _)))) = hilbert_frontend::lower_project_params(loaded(), &specs) else {
        return;
    };
    let policy = match policy % 3 {
        0 => Reconsideration::Bold,
        1 => Reconsideration::Cautious,
        _ => Reconsideration::OnChange(["made".to_string(), "alarm".to_string()].into()),
    };
    let names: Vec<String> = ir.agents.iter().map(|a| a.name.clone()).collect();
    let Ok(mut system) = System::new(&ir, &names, policy, scenario, Hosts::new()) else {
        return;
    };
    let mut entries = Vec::new();
    let _ = system.run_with(&|rounds| rounds >= 64, &mut |e| {
        entries.push(e);
        Ok::<(), std::convert::Infallible>(())
    });
    let header = system.agents[0].header(names, Vec::new());
    let lines = journal::to_lines(&header, &entries);
    let (read, back, _) = journal::parse(&lines).expect("a journal the runtime wrote reads back");
    assert_eq!(read, header);
    assert_eq!(back, entries);
});
