//! Four `f64` lanes for kernels whose vectorisation must not be left to the
//! compiler (it may group the lanes across the wrong index): arrays on the
//! baseline path, one AVX register on the FMA paths. Each lane rounds exactly
//! as [`Isa::mul_add`] does, so a kernel gives the same bits whichever way
//! its lanes are held.

use super::{Fused, Isa, Plain};

/// Four-lane arithmetic of a path (crate-internal: see the safety contract).
///
/// # Safety
/// For [`Fused`] on x86-64 the functions use AVX and FMA instructions: they may
/// only run inside the `avx2_fma`/`avx512_fma` functions of
/// [`dispatch!`](crate::dispatch), which exist only on CPUs that have both.
pub(crate) trait Lanes: Isa {
    type V: Copy;
    unsafe fn splat(x: f64) -> Self::V;
    unsafe fn load(x: &[f64; 4]) -> Self::V;
    unsafe fn store(v: Self::V, x: &mut [f64; 4]);
    /// `a * b + c` lane by lane (rounded as [`Isa::mul_add`]).
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
}

impl Lanes for Plain {
    type V = [f64; 4];
    #[inline(always)]
    unsafe fn splat(x: f64) -> [f64; 4] {
        [x; 4]
    }
    #[inline(always)]
    unsafe fn load(x: &[f64; 4]) -> [f64; 4] {
        *x
    }
    #[inline(always)]
    unsafe fn store(v: [f64; 4], x: &mut [f64; 4]) {
        *x = v;
    }
    #[inline(always)]
    unsafe fn fma(a: [f64; 4], b: [f64; 4], c: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| Plain::mul_add(a[l], b[l], c[l]))
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for Fused {
    type V = std::arch::x86_64::__m256d;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self::V {
        // SAFETY: AVX is available (trait contract).
        unsafe { std::arch::x86_64::_mm256_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn load(x: &[f64; 4]) -> Self::V {
        // SAFETY: AVX (trait contract); `x` holds four doubles.
        unsafe { std::arch::x86_64::_mm256_loadu_pd(x.as_ptr()) }
    }
    #[inline(always)]
    unsafe fn store(v: Self::V, x: &mut [f64; 4]) {
        // SAFETY: AVX (trait contract); `x` holds four doubles.
        unsafe { std::arch::x86_64::_mm256_storeu_pd(x.as_mut_ptr(), v) }
    }
    #[inline(always)]
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        // SAFETY: FMA is available (trait contract).
        unsafe { std::arch::x86_64::_mm256_fmadd_pd(a, b, c) }
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Lanes for Fused {
    type V = [f64; 4];
    #[inline(always)]
    unsafe fn splat(x: f64) -> [f64; 4] {
        [x; 4]
    }
    #[inline(always)]
    unsafe fn load(x: &[f64; 4]) -> [f64; 4] {
        *x
    }
    #[inline(always)]
    unsafe fn store(v: [f64; 4], x: &mut [f64; 4]) {
        *x = v;
    }
    #[inline(always)]
    unsafe fn fma(a: [f64; 4], b: [f64; 4], c: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| Fused::mul_add(a[l], b[l], c[l]))
    }
}
