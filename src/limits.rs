//! What the machine can hold: one memory ceiling for every allocation a
//! configuration implies, checked up front with checked arithmetic.
//!
//! The ceiling is, in order: the value set by [`set_memory_limit`]
//! (`kernelstream.set_memory_limit` in Python), the environment variable
//! `KERNELSTREAM_MEMORY_LIMIT` (bytes, read once), or the default: half of the
//! physical memory, at most 8 GiB (8 GiB when the physical memory is unknown).
//! A constructor whose state would need more refuses with a `ParameterError`
//! that names the memory needed; a decoded state is held to the same caps.

use crate::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};

/// 0: not set yet (resolved lazily from the environment / the default).
static LIMIT: AtomicU64 = AtomicU64::new(0);

const DEFAULT_CAP: u64 = 8 << 30;

fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn default_limit() -> u64 {
    if let Some(v) = std::env::var("KERNELSTREAM_MEMORY_LIMIT").ok().and_then(|s| parse_bytes(&s)) {
        return v;
    }
    physical_memory().map_or(DEFAULT_CAP, |m| (m / 2).min(DEFAULT_CAP))
}

/// `"1073741824"`, `"512M"`, `"8G"`, `"2GiB"` -> bytes.
fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u64 = s[..digits].parse().ok()?;
    let mult: u64 = match s[digits..]
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult).filter(|&v| v > 0)
}

/// The current ceiling in bytes.
pub fn memory_limit() -> u64 {
    match LIMIT.load(Ordering::Relaxed) {
        0 => {
            let v = default_limit();
            LIMIT.store(v, Ordering::Relaxed);
            v
        }
        v => v,
    }
}

/// Sets the ceiling (bytes, > 0).
pub fn set_memory_limit(bytes: u64) -> Result<()> {
    if bytes == 0 {
        return crate::param_err!("the memory limit must be a positive number of bytes");
    }
    LIMIT.store(bytes, Ordering::Relaxed);
    Ok(())
}

/// A human-readable size.
pub fn human(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// Refuses `what` if it needs more than the ceiling. `doubles` is the number of
/// f64 the configuration implies (computed with u128 arithmetic by the caller,
/// `None` if even that overflowed).
pub fn check_doubles(what: &str, doubles: Option<u128>) -> Result<()> {
    let bytes = doubles.and_then(|n| n.checked_mul(8));
    let limit = memory_limit();
    match bytes {
        Some(b) if b <= limit as u128 => Ok(()),
        Some(b) => crate::param_err!(
            "{what} needs about {} of memory, above the limit of {} \
             (raise it with kernelstream.set_memory_limit(bytes) or KERNELSTREAM_MEMORY_LIMIT)",
            human(b),
            human(limit as u128)
        ),
        None => crate::param_err!("{what} needs more memory than can be addressed"),
    }
}

/// Entries of a packed symmetric `r x r` matrix, `r (r + 1) / 2`, without overflow.
pub fn packed(r: usize) -> u128 {
    let r = r as u128;
    r * (r + 1) / 2
}

/// Smallest and largest value accepted for a scale parameter (a kernel width, a
/// regularisation, a step size, ...): outside, its square or its inverse square
/// under- or overflows double precision and the learner would compute NaN.
pub const SCALE_MIN: f64 = 1e-100;
pub const SCALE_MAX: f64 = 1e100;

/// Checks a finite scale parameter in `[SCALE_MIN, SCALE_MAX]`.
pub fn scale(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && (SCALE_MIN..=SCALE_MAX).contains(&value) {
        Ok(value)
    } else {
        crate::param_err!(
            "{name} must be a finite number in [{SCALE_MIN:e}, {SCALE_MAX:e}], got {value:.6e}"
        )
    }
}

/// Largest `|y|` a squared loss can take: `y^2` and sums of `y^2` over 10^8 rounds stay finite.
pub const Y_MAX: f64 = 1e150;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_bytes("1024"), Some(1024));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("3GiB"), Some(3 << 30));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes("0"), None);
    }

    #[test]
    fn packed_never_overflows() {
        assert_eq!(packed(4), 10);
        assert!(check_doubles("x", Some(packed(1 << 32))).is_err());
        assert!(check_doubles("x", Some(10)).is_ok());
    }
}
