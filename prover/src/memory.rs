//! The process's memory, as the operating system counts it (Linux `/proc`): what the build's
//! `--max-memory` bound is checked against and what its statistics report. Elsewhere every
//! reading is `None` and the bound is not enforced (said so by `--max-memory`'s help).

/// The process's resident set now, in bytes (`VmRSS`).
pub use hilbert_smt::meter::resident;
use hilbert_smt::meter::status_bytes;

/// The process's peak resident set so far, in bytes (`VmHWM`).
pub fn peak() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// Resets the peak resident set to the current one (`5` to `/proc/self/clear_refs`), so that
/// the next [`peak`] is the peak of what ran in between. Returns whether it could.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The highest peak seen before a [`Phase`] reset the operating system's count.
static EARLIER_PEAK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The process's peak resident set over its whole life, in bytes, although [`Phase`]s reset
/// the operating system's count: the largest of their peaks and the count now.
pub fn overall_peak() -> Option<u64> {
    let now = peak()?;
    Some(now.max(EARLIER_PEAK.load(std::sync::atomic::Ordering::Relaxed)))
}

/// The peak resident set of one part of the work (exploring and proving one network, the
/// kernel's check of one certificate): the count is reset when the phase begins and read when
/// it ends. Phases run one after another, never at once.
pub struct Phase {
    reset: bool,
}

impl Phase {
    /// Begins a phase: folds the peak so far into [`overall_peak`], then resets the count.
    pub fn begin() -> Phase {
        if let Some(p) = peak() {
            EARLIER_PEAK.fetch_max(p, std::sync::atomic::Ordering::Relaxed);
        }
        Phase {
            reset: reset_peak(),
        }
    }

    /// The phase's peak resident set, in bytes (`None` where it cannot be measured).
    pub fn end(self) -> Option<u64> {
        let p = peak().filter(|_| self.reset)?;
        EARLIER_PEAK.fetch_max(p, std::sync::atomic::Ordering::Relaxed);
        Some(p)
    }
}

/// The memory this machine has, in bytes, or less if the process is held to less: by its
/// control group (`memory.max`) or by its soft limits on address space and data (`ulimit -v`,
/// `ulimit -d`, from `/proc/self/limits`), whichever is smallest.
pub fn available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let total = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?
        * 1024;
    let group = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let limits = std::fs::read_to_string("/proc/self/limits").ok();
    let limit = limits.as_deref().and_then(address_limit);
    Some([group, limit].into_iter().flatten().fold(total, u64::min))
}

/// The smaller of the soft limits on address space and data in a `/proc/self/limits` text
/// (`Max address space  4294967296  unlimited  bytes`), if either is set.
fn address_limit(limits: &str) -> Option<u64> {
    limits
        .lines()
        .filter(|l| l.starts_with("Max address space") || l.starts_with("Max data size"))
        .filter_map(|l| l.split_whitespace().nth(3)?.parse::<u64>().ok())
        .min()
}

/// The default `--max-memory`: half of [`available`] (the rest is left to the machine's other
/// work, and under an address-space limit to what is mapped but not resident), or 4 GiB where
/// it cannot be read.
pub fn default_limit() -> u64 {
    available().map_or(4 << 30, |m| m / 2)
}

/// Parses a byte count as a person writes it: `512M`, `2G`, `1.5GiB`, `1000000` (bytes).
/// Units are powers of 1024 (`K`, `M`, `G`, `T`, with or without `iB` or `B`).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown unit `{other}`: write a size such as 512M, 2G or 1.5GiB"
            ));
        }
    };
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size: write one such as 512M, 2G or 1.5GiB"))?;
    let bytes = n * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is not a size between 1 byte and 16 EiB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("64 kb"), Ok(64 << 10));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("3X").is_err());
    }

    #[test]
    fn an_address_space_or_data_limit_lowers_what_is_available() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units
Max stack size            8388608              unlimited            bytes
Max data size             unlimited            unlimited            bytes
Max resident set          unlimited            unlimited            bytes
Max address space         4294967296           unlimited            bytes
";
        assert_eq!(address_limit(limits), Some(4 << 30));
        let both = limits.replace(
            "Max data size             unlimited",
            "Max data size             1073741824",
        );
        assert_eq!(address_limit(&both), Some(1 << 30));
        let none = limits.replace("4294967296", "unlimited");
        assert_eq!(address_limit(&none), None);
    }

    #[test]
    fn the_process_reads_its_own_memory_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(resident().is_some() && peak().is_some());
            // Both from one reading of /proc/self/status: another test of this process may
            // reset the peak (Phase::begin) between two readings.
            let status = std::fs::read_to_string("/proc/self/status").expect("status");
            let field = |name: &str| -> u64 {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.split_whitespace().next()?.parse().ok())
                    .expect(name)
            };
            let (rss, hwm) = (field("VmRSS:"), field("VmHWM:"));
            assert!(rss > 0 && hwm >= rss, "{rss} {hwm}");
            assert!(default_limit() < available().unwrap());
            // A phase that holds 64 MiB peaks above it, and the overall peak keeps it after.
            let phase = Phase::begin();
            let block = vec![1u8; 64 << 20];
            std::hint::black_box(&block);
            drop(block);
            let p = phase.end().expect("a phase's peak");
            assert!(p >= 64 << 20, "{p}");
            let after = Phase::begin();
            assert!(overall_peak().unwrap() >= p);
            let _ = after.end();
        }
    }
}
