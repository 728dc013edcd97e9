//! Feeds arbitrary bytes to the loader and parser of each dialect: no input may panic, hang or
//! overflow the stack. Run with `cargo +nightly fuzz run parse` from the repository root.
#![no_main]

use hilbert_frontend::project::{Loaded, add_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let name = ["fuzz.ha", "fuzz.hk", "fuzz.hb"][usize::from(selector % 3)];
    let mut loaded = Loaded::default();
    add_bytes(&mut loaded, name.to_string(), bytes.to_vec());
    let checked = hilbert_frontend::check_project(&loaded);
    for d in &checked.diagnostics {
        let file = loaded.sources.get(d.span.file);
        assert!(d.span.start <= d.span.end && d.span.end as usize <= file.text.len());
    }
});
