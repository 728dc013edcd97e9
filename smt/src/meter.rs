//! The process's memory as the operating system counts it (Linux `/proc`), which bounds Z3's
//! queries (`--max-memory`: [`crate::Options::max_memory`]); `hilbert_prover::memory` builds
//! the build's phases and statistics on the same readings. Elsewhere every reading is `None`
//! and the bound is not enforced.

/// A line of `/proc/self/status` in bytes (the kernel writes it in KiB).
pub fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The process's resident set now, in bytes (`VmRSS`).
pub fn resident() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// A byte count for people: `16 MiB`, `1 GiB`, `1.5 KiB`, `512 B`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size {
            let text = format!("{:.1}", n as f64 / size as f64);
            return format!("{} {unit}", text.trim_end_matches(".0"));
        }
    }
    format!("{n} B")
}
