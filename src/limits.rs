//! What the machine can hold: one memory ceiling for every allocation a
//! configuration implies, checked up front with checked arithmetic.
//!
//! The ceiling is, in order: the value set by [`set_memory_limit`]
//! (`kernelstream.set_memory_limit` in Python), the environment variable
//! `KERNELSTREAM_MEMORY_LIMIT`, or the default: half of the memory this process
//! may use (the physical memory, or the cgroup limit of a container if lower:
//! cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`, of the process's group and
//! its ancestors), at most 8 GiB (8 GiB when nothing is known).
//!
//! `KERNELSTREAM_MEMORY_LIMIT` is a positive number of bytes, optionally with a
//! binary unit: `1073741824`, `1e9`, `512M`, `1.5G`, `2GiB`, `3 TB` (K, M, G, T =
//! 2^10 .. 2^40, with or without `B` / `iB`). A value that does not parse (`abc`,
//! `0`, `-1`) is never ignored: every check of the ceiling (each constructor, each
//! first row) raises a `ParameterError` that quotes it, until
//! [`set_memory_limit`] sets a value.
//!
//! Each learner counts, before allocating, everything it will hold that grows with
//! a parameter or with the input width (the first row fixes it) and refuses with a
//! `ParameterError` (configuration) or an `InputError` (the width of the first row)
//! that names the memory needed. The largest buffers are then allocated fallibly
//! ([`try_zeros`]): if the system refuses even below the ceiling, the call fails
//! with an error instead of aborting the process.

use crate::error::Result;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// 0: not set yet (resolved from the environment / the default on each use).
static LIMIT: AtomicU64 = AtomicU64::new(0);

const DEFAULT_CAP: u64 = 8 << 30;

/// The environment variable that sets the ceiling.
pub const ENV_VAR: &str = "KERNELSTREAM_MEMORY_LIMIT";

fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// A cgroup limit file: a number of bytes, or `max` (v2) / a huge value (v1) for none.
fn read_limit(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.trim().parse::<u64>().ok().filter(|&v| v > 0 && v < (1 << 62))
}

/// The lowest memory limit of the cgroups of a process: `proc_cgroup` is the
/// text of `/proc/self/cgroup`, `root` the cgroup mount (`/sys/fs/cgroup`).
/// Every ancestor of the process's group counts (a parent's limit binds its
/// children), and so does the mount's own top (a container sees its group there).
pub fn cgroup_limit(root: &Path, proc_cgroup: &str) -> Option<u64> {
    let mut best: Option<u64> = None;
    let mut take = |p: std::path::PathBuf| {
        if let Some(v) = read_limit(&p) {
            best = Some(best.map_or(v, |b| b.min(v)));
        }
    };
    let walk = |base: &Path, rel: &str, file: &str, take: &mut dyn FnMut(std::path::PathBuf)| {
        let mut dir = base.to_path_buf();
        take(dir.join(file));
        for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".." && *p != ".") {
            dir.push(part);
            take(dir.join(file));
        }
    };
    for line in proc_cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (_, ctrl, rel) = match (f.next(), f.next(), f.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => continue,
        };
        if ctrl.is_empty() {
            walk(root, rel, "memory.max", &mut take); // v2 (unified)
        } else if ctrl.split(',').any(|c| c == "memory") {
            walk(&root.join("memory"), rel, "memory.limit_in_bytes", &mut take);
            // v1
        }
    }
    best
}

fn default_limit() -> u64 {
    let cg = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|t| cgroup_limit(Path::new("/sys/fs/cgroup"), &t));
    let usable = match (physical_memory(), cg) {
        (Some(p), Some(c)) => Some(p.min(c)),
        (p, c) => p.or(c),
    };
    usable.map_or(DEFAULT_CAP, |m| (m / 2).min(DEFAULT_CAP))
}

/// A size: a positive number (`1024`, `1.5`, `1e9`) and an optional binary unit
/// (`K`, `M`, `G`, `T`, each with or without `B` / `iB`, any case) -> bytes.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    let (num, unit) = (t[..split].trim(), t[split..].to_ascii_uppercase());
    let mult: f64 = match unit.trim_end_matches("IB").trim_end_matches('B') {
        "" if unit.is_empty() || unit == "B" => 1.0,
        "K" => (1u64 << 10) as f64,
        "M" => (1u64 << 20) as f64,
        "G" => (1u64 << 30) as f64,
        "T" => (1u64 << 40) as f64,
        _ => return Err(format!("unknown unit {:?}", &t[split..])),
    };
    let n: f64 = num.parse().map_err(|_| format!("{num:?} is not a number"))?;
    let bytes = n * mult;
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err("it must be a positive size of at least one byte".into());
    }
    if bytes >= u64::MAX as f64 {
        return Err("it is larger than any address space".into());
    }
    Ok(bytes as u64)
}

/// The ceiling from the environment or the default; `Err` if the variable is set
/// but is not a size.
fn resolve() -> Result<u64> {
    match std::env::var_os(ENV_VAR) {
        None => Ok(default_limit()),
        Some(raw) => {
            let text = raw.to_string_lossy();
            parse_bytes(&text).map_err(|why| {
                crate::KsError::Parameter(format!(
                    "{ENV_VAR}={text:?} is not a memory size ({why}); use bytes or a number \
                     with a binary unit, e.g. 1073741824, 1e9, 512M, 1.5G, 2GiB"
                ))
            })
        }
    }
}

/// The current ceiling in bytes (`ParameterError` if `KERNELSTREAM_MEMORY_LIMIT`
/// is set to something that is not a size and no value was set since).
pub fn memory_limit() -> Result<u64> {
    match LIMIT.load(Ordering::Relaxed) {
        0 => {
            let v = resolve()?;
            let _ = LIMIT.compare_exchange(0, v, Ordering::Relaxed, Ordering::Relaxed);
            Ok(LIMIT.load(Ordering::Relaxed))
        }
        v => Ok(v),
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
    let limit = memory_limit()?;
    match bytes {
        Some(b) if b <= limit as u128 => Ok(()),
        Some(b) => crate::param_err!(
            "{what} needs about {} of memory, above the limit of {} \
             (raise it with kernelstream.set_memory_limit(bytes) or {ENV_VAR})",
            human(b),
            human(limit as u128)
        ),
        None => crate::param_err!("{what} needs more memory than can be addressed"),
    }
}

/// [`check_doubles`] for what the width `d` of the first row implies: the same
/// check, refused as an `InputError` (the configuration was fine, the input is
/// too wide for it).
pub fn check_input_doubles(what: &str, doubles: Option<u128>) -> Result<()> {
    check_doubles(what, doubles).map_err(|e| match e {
        crate::KsError::Parameter(m) => crate::KsError::Input(m),
        e => e,
    })
}

/// `n` zeros, allocated fallibly: an `InputError` naming `what` instead of an abort
/// when the system refuses (below the ceiling, e.g. under overcommit limits).
pub fn try_zeros(what: &str, n: usize) -> Result<Vec<f64>> {
    let mut v = try_with_capacity(what, n)?;
    v.resize(n, 0.0);
    Ok(v)
}

/// An empty vector with room for `n` values, allocated fallibly (see [`try_zeros`]).
pub fn try_with_capacity<T>(what: &str, n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        crate::KsError::Input(format!(
            "{what}: the system refused {} of memory",
            human((n as u128).saturating_mul(std::mem::size_of::<T>() as u128))
        ))
    })?;
    Ok(v)
}

/// The sum of several [`check_doubles`] counts (`None` if one is or the sum overflows).
pub fn sum_doubles(parts: impl IntoIterator<Item = Option<u128>>) -> Option<u128> {
    parts.into_iter().try_fold(0u128, |a, b| a.checked_add(b?))
}

/// Entries of a packed symmetric `r x r` matrix, `r (r + 1) / 2`, without overflow.
pub fn packed(r: usize) -> u128 {
    let r = r as u128;
    r * (r + 1) / 2
}

// The range of scale parameters is a value check (`crate::error`), re-exported here.
pub use crate::error::{scale, SCALE_MAX, SCALE_MIN};

/// Largest `|y|` a squared loss can take: `y^2` and sums of `y^2` over 10^8 rounds stay finite.
pub const Y_MAX: f64 = 1e150;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_bytes("1024"), Ok(1024));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("3GiB"), Ok(3 << 30));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bytes("1e9"), Ok(1_000_000_000));
        assert_eq!(parse_bytes(" 512 mb "), Ok(512 << 20));
        assert_eq!(parse_bytes("8kB"), Ok(8 << 10));
        for bad in ["x", "abc", "0", "-1", "-2G", "0.1", "1.5Q", "G", "", "nan", "inf", "1e30T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cgroup_limits_are_read_along_the_path() {
        let root = std::env::temp_dir().join(format!("ks-cgroup-{}", std::process::id()));
        let leaf = root.join("a/b");
        std::fs::create_dir_all(&leaf).unwrap();
        std::fs::write(root.join("a/memory.max"), "1073741824\n").unwrap();
        std::fs::write(leaf.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_limit(&root, "0::/a/b\n"), Some(1 << 30));
        assert_eq!(cgroup_limit(&root, "0::/c\n"), None);
        let v1 = root.join("memory/x");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "536870912\n").unwrap();
        std::fs::write(root.join("memory/memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        assert_eq!(cgroup_limit(&root, "4:memory:/x\n3:cpu,cpuacct:/y\n"), Some(1 << 29));
        assert_eq!(cgroup_limit(&root, "4:cpu,memory:/x\n0::/a/b\n"), Some(1 << 29));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn fallible_allocation_reports_instead_of_aborting() {
        assert!(try_zeros("x", usize::MAX / 16).is_err());
        assert_eq!(try_zeros("x", 3).unwrap(), vec![0.0; 3]);
    }

    #[test]
    fn packed_never_overflows() {
        assert_eq!(packed(4), 10);
        assert!(check_doubles("x", Some(packed(1 << 32))).is_err());
        assert!(check_doubles("x", Some(10)).is_ok());
    }
}
