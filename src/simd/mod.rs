//! Run-time choice of the instruction set for the hot kernels.
//!
//! The crate is compiled for baseline x86-64 (SSE2) so that one build runs on
//! every x86-64 CPU. The few kernels that dominate a round (dot, axpy, the
//! packed symmetric mat-vec and rank-one update, the random-feature projection
//! and cosines) are compiled three times, for [`Path::Baseline`],
//! [`Path::Avx2Fma`] and [`Path::Avx512`], by [`dispatch!`](crate::dispatch);
//! the path is chosen once per process ([`selected`]) from the CPU, or from the
//! environment variable `KERNELSTREAM_SIMD` (`baseline`, `avx2`, `avx512` or
//! `auto`), which can only lower it: asking for more than the CPU has gives what
//! it has.
//!
//! Numerics: the AVX2 and AVX-512 paths use fused multiply-adds, one rounding
//! instead of two, so their results can differ from the baseline path in the
//! last bits (a dot product of length `n` moves by at most about `n eps sum |a_i b_i|`,
//! the usual forward error bound). The two FMA paths perform the same operations
//! in the same order (only the vector width differs) and agree bit for bit. Within
//! one process, the path never changes, so runs are deterministic.

mod isa;
mod lanes;

pub use isa::{Fused, Isa, Plain};
pub(crate) use lanes::Lanes;

use std::sync::OnceLock;

/// Instruction-set path of the dispatched kernels, from slowest to fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Path {
    /// SSE2 only (every x86-64 CPU, and every other architecture), no FMA.
    Baseline,
    /// AVX2 with fused multiply-add (Intel Haswell, AMD Zen and later).
    Avx2Fma,
    /// AVX-512F with fused multiply-add.
    Avx512,
}

impl Path {
    /// Every path, slowest first.
    pub const ALL: [Path; 3] = [Path::Baseline, Path::Avx2Fma, Path::Avx512];

    /// The name reported by `build_info()` and accepted by `KERNELSTREAM_SIMD`.
    pub fn name(self) -> &'static str {
        match self {
            Path::Baseline => "baseline",
            Path::Avx2Fma => "avx2",
            Path::Avx512 => "avx512",
        }
    }

    /// Parses a `KERNELSTREAM_SIMD` value (`auto` or empty gives `None`: no limit).
    pub fn from_name(name: &str) -> std::result::Result<Option<Path>, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "baseline" | "sse2" => Ok(Some(Path::Baseline)),
            "avx2" => Ok(Some(Path::Avx2Fma)),
            "avx512" => Ok(Some(Path::Avx512)),
            other => Err(format!(
                "KERNELSTREAM_SIMD={other:?} is not one of auto, baseline, avx2, avx512"
            )),
        }
    }

    /// Whether this CPU can run the path.
    pub fn supported(self) -> bool {
        match self {
            Path::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Fma => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                Path::Avx2Fma.supported() && std::arch::is_x86_feature_detected!("avx512f")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

static DETECTED: OnceLock<Path> = OnceLock::new();
static SELECTED: OnceLock<Path> = OnceLock::new();

/// The fastest path this CPU supports (detected once).
#[inline]
pub fn detected() -> Path {
    *DETECTED.get_or_init(|| {
        Path::ALL.into_iter().rev().find(|p| p.supported()).unwrap_or(Path::Baseline)
    })
}

/// The path every dispatched kernel uses in this process: [`detected`], lowered
/// to `KERNELSTREAM_SIMD` if that is set. Read once; an unknown value is reported
/// on stderr once and ignored.
#[inline]
pub fn selected() -> Path {
    *SELECTED.get_or_init(|| {
        let best = detected();
        match std::env::var("KERNELSTREAM_SIMD").map(|v| Path::from_name(&v)) {
            Ok(Ok(Some(asked))) => asked.min(best),
            Ok(Err(msg)) => {
                eprintln!("kernelstream: warning: {msg}; using {}", best.name());
                best
            }
            _ => best,
        }
    })
}

/// The kernels compiled once per path, each with the path it runs in this process.
pub fn kernel_paths() -> Vec<(&'static str, Path)> {
    let p = selected();
    ["dot", "dot4", "axpy", "packed_symv", "packed_syr", "rff_project", "cos", "sincos"]
        .into_iter()
        .map(|k| (k, p))
        .collect()
}

/// The instruction-set extensions the whole crate was compiled for (outside the
/// dispatched kernels): `["sse", "sse2"]` for a portable build.
pub fn compiled_features() -> Vec<&'static str> {
    let mut f = Vec::new();
    macro_rules! probe {
        ($($name:tt),*) => {$(
            if cfg!(target_feature = $name) {
                f.push($name);
            }
        )*};
    }
    probe!(
        "sse", "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "bmi1",
        "bmi2", "avx512f", "neon"
    );
    f
}

/// `fn name(args) => imp, name_on;` defines `name(args)`, which runs `imp::<I>`
/// compiled for the [`selected`] path, and `name_on(path, args)`, which runs a
/// given path (for tests comparing paths; a path above the CPU's runs the CPU's best).
/// The baseline is `imp::<Plain>`; the others are `imp::<Fused>` inside
/// `#[target_feature]` functions named `avx2_fma` and `avx512_fma` (the names the
/// disassembly check of `.ci/qemu` looks for).
#[doc(hidden)]
#[macro_export]
macro_rules! dispatch {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? => $imp:ident, $on:ident;) => {
        $(#[$m])*
        #[inline]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            $on($crate::__internal::simd::selected(), $($arg),*)
        }

        /// Runs the given instruction-set path (see [`crate::simd`]).
        #[inline]
        #[allow(dead_code)]
        $vis fn $on(path: $crate::__internal::simd::Path, $($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                // A path above what the CPU has runs the best it has.
                match path.min($crate::__internal::simd::detected()) {
                    $crate::__internal::simd::Path::Avx512 => {
                        #[target_feature(enable = "avx512f,avx2,fma")]
                        unsafe fn avx512_fma($($arg: $ty),*) $(-> $ret)? {
                            $imp::<$crate::__internal::simd::Fused>($($arg),*)
                        }
                        // SAFETY: the CPU supports the path (capped at `detected`).
                        return unsafe { avx512_fma($($arg),*) };
                    }
                    $crate::__internal::simd::Path::Avx2Fma => {
                        #[target_feature(enable = "avx2,fma")]
                        unsafe fn avx2_fma($($arg: $ty),*) $(-> $ret)? {
                            $imp::<$crate::__internal::simd::Fused>($($arg),*)
                        }
                        // SAFETY: as above.
                        return unsafe { avx2_fma($($arg),*) };
                    }
                    $crate::__internal::simd::Path::Baseline => {}
                }
            }
            let _ = path;
            $imp::<$crate::__internal::simd::Plain>($($arg),*)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Path::ALL {
            assert_eq!(Path::from_name(p.name()), Ok(Some(p)));
        }
        assert_eq!(Path::from_name("auto"), Ok(None));
        assert!(Path::from_name("avx1024").is_err());
        assert!(detected().supported());
        assert!(selected() <= detected());
    }
}
