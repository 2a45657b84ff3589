//! Matrix-matrix products (BLAS-3) on strided views of slices, through one of two
//! kernels, each choosing its micro-kernel at run time (nothing machine-specific in
//! the build):
//!
//! * [`Backend::Gemm`], the `gemm` crate (the product kernel of faer): AVX-512 or
//!   AVX2/FMA micro-kernels behind its CPU feature detection. Used wherever the CPU
//!   has the whole x86-64-v3 feature set (and, with AVX-512F, the whole v4 set: that
//!   crate's dispatch tests one flag and assumes the rest) and the SIMD path
//!   ([`crate::simd::selected`]) is not the baseline;
//! * [`Backend::MatrixMultiply`], `matrixmultiply` (AVX2/FMA, AVX or SSE2 kernels),
//!   everywhere else.
//!
//! The `gemm` crate is faster on every shape the blocked rounds use (1.2x-2x on this
//! project's shapes, `cargo bench --features bench --bench gemm`), so the choice
//! depends on the CPU only. Both sum each `C_ij` over `k` in blocks whose sizes
//! depend on the kernel (and, for `gemm`, on the cache sizes), so results can differ
//! between backends and CPUs by rounding; within one process the choice is fixed.

use std::sync::OnceLock;

/// A strided `rows x cols` view: element `(i, j)` lives at `off + i * rs + j * cs`.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub rows: usize,
    pub cols: usize,
    pub off: usize,
    pub rs: usize,
    pub cs: usize,
}

impl View {
    /// Column-major `rows x cols` block at `off` with leading dimension `ld`.
    pub fn col_major(rows: usize, cols: usize, off: usize, ld: usize) -> Self {
        View { rows, cols, off, rs: 1, cs: ld }
    }
    /// The transpose of the same storage.
    pub fn t(self) -> Self {
        View { rows: self.cols, cols: self.rows, off: self.off, rs: self.cs, cs: self.rs }
    }
    /// One past the largest index the view touches (0 when empty).
    fn end(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        self.off + (self.rows - 1) * self.rs + (self.cols - 1) * self.cs + 1
    }
}

/// The product kernel (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `matrixmultiply`: runs on every CPU.
    MatrixMultiply,
    /// The `gemm` crate: x86-64 CPUs with the whole v3 (and, with AVX-512F, v4) set.
    Gemm,
}

impl Backend {
    /// Both backends.
    pub const ALL: [Backend; 2] = [Backend::MatrixMultiply, Backend::Gemm];

    /// The name reported by `build_info()["gemm"]`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::MatrixMultiply => "matrixmultiply",
            Backend::Gemm if cpu_has_v4() => "gemm-avx512",
            Backend::Gemm => "gemm-avx2",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn supported(self) -> bool {
        match self {
            Backend::MatrixMultiply => true,
            Backend::Gemm => gemm_safe(),
        }
    }
}

/// Every feature the `gemm` crate's AVX2 kernels are compiled for (x86-64-v3).
#[cfg(target_arch = "x86_64")]
fn cpu_has_v3() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("sse3")
        && has!("ssse3")
        && has!("sse4.1")
        && has!("sse4.2")
        && has!("popcnt")
        && has!("fxsr")
        && has!("avx")
        && has!("avx2")
        && has!("bmi1")
        && has!("bmi2")
        && has!("fma")
        && has!("lzcnt")
}

/// The AVX-512 subset its AVX-512 kernels are compiled for (x86-64-v4).
#[cfg(target_arch = "x86_64")]
fn cpu_has_v4() -> bool {
    use std::arch::is_x86_feature_detected as has;
    cpu_has_v3()
        && has!("avx512f")
        && has!("avx512bw")
        && has!("avx512cd")
        && has!("avx512dq")
        && has!("avx512vl")
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has_v4() -> bool {
    false
}

/// The `gemm` crate picks its AVX-512 kernel when AVX-512F is present and its AVX2
/// one when FMA is, and each asserts its whole feature set: both must then hold.
#[cfg(target_arch = "x86_64")]
fn gemm_safe() -> bool {
    cpu_has_v3() && (!std::arch::is_x86_feature_detected!("avx512f") || cpu_has_v4())
}

#[cfg(not(target_arch = "x86_64"))]
fn gemm_safe() -> bool {
    false
}

static SELECTED: OnceLock<Backend> = OnceLock::new();

/// The backend [`gemm`] uses in this process: `gemm` where the CPU supports it and
/// the SIMD path is above the baseline (`KERNELSTREAM_SIMD=baseline` gives
/// `matrixmultiply`), decided once.
pub fn selected() -> Backend {
    *SELECTED.get_or_init(|| {
        let fma = crate::simd::selected() >= crate::simd::Path::Avx2Fma;
        if fma && Backend::Gemm.supported() {
            Backend::Gemm
        } else {
            Backend::MatrixMultiply
        }
    })
}

/// `C = alpha A B + beta C` (`A` is `m x k`, `B` is `k x n`, `C` is `m x n`) with
/// the [`selected`] backend. Shapes and bounds are checked (an internal invariant: a
/// violation panics). With `beta == 0`, `C` is not read.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn gemm(
    alpha: f64,
    a: &[f64],
    av: View,
    b: &[f64],
    bv: View,
    beta: f64,
    c: &mut [f64],
    cv: View,
) {
    gemm_on(selected(), alpha, a, av, b, bv, beta, c, cv)
}

/// [`gemm`] with a given backend (for benchmarks and tests comparing them); one this
/// CPU does not support runs `matrixmultiply`.
#[allow(clippy::too_many_arguments)]
pub fn gemm_on(
    backend: Backend,
    alpha: f64,
    a: &[f64],
    av: View,
    b: &[f64],
    bv: View,
    beta: f64,
    c: &mut [f64],
    cv: View,
) {
    let (m, k, n) = (av.rows, av.cols, bv.cols);
    assert!(bv.rows == k && cv.rows == m && cv.cols == n, "gemm: shapes do not conform");
    assert!(
        av.end() <= a.len() && bv.end() <= b.len() && cv.end() <= c.len(),
        "gemm: view out of bounds"
    );
    if m == 0 || n == 0 {
        return;
    }
    let ap = a.as_ptr().wrapping_add(av.off.min(a.len()));
    let bp = b.as_ptr().wrapping_add(bv.off.min(b.len()));
    let cp = c.as_mut_ptr().wrapping_add(cv.off);
    // SAFETY: every index the product touches lies inside its slice (checked
    // above); `c` is a unique borrow, so it does not alias `a` or `b`.
    unsafe {
        match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Gemm if gemm_safe() => {
                gemm_crate(alpha, ap, av, bp, bv, beta, cp, cv);
            }
            _ => matrixmultiply::dgemm(
                m,
                k,
                n,
                alpha,
                ap,
                av.rs as isize,
                av.cs as isize,
                bp,
                bv.rs as isize,
                bv.cs as isize,
                beta,
                cp,
                cv.rs as isize,
                cv.cs as isize,
            ),
        }
    }
}

/// The `gemm` crate's product (`dst = alpha dst + beta lhs rhs` in its convention,
/// `dst` not read unless asked), on the transposed problem `C^T = B^T A^T` when `C`
/// is stored by rows: its kernels prefer a column-major destination.
/// SAFETY: the views lie inside their allocations; `c` aliases neither input; the
/// CPU has the features [`gemm_safe`] checks.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_crate(
    alpha: f64,
    a: *const f64,
    av: View,
    b: *const f64,
    bv: View,
    beta: f64,
    c: *mut f64,
    cv: View,
) {
    let ((a, av), (b, bv), cv) =
        if cv.cs < cv.rs { ((b, bv.t()), (a, av.t()), cv.t()) } else { ((a, av), (b, bv), cv) };
    let s = |x: usize| x as isize;
    let f = gemm_f64::gemm::f64::get_gemm_fn();
    f(
        cv.rows,
        cv.cols,
        av.cols,
        c,
        s(cv.cs),
        s(cv.rs),
        beta != 0.0,
        a,
        s(av.cs),
        s(av.rs),
        b,
        s(bv.cs),
        s(bv.rs),
        beta,
        alpha,
        false,
        false,
        false,
        gemm_common::Parallelism::None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `alpha A B + beta C0` from the definition, in column-major `m x n`.
    #[allow(clippy::too_many_arguments)]
    fn naive(
        alpha: f64,
        a: &[f64],
        av: View,
        b: &[f64],
        bv: View,
        beta: f64,
        c0: &[f64],
        cv: View,
    ) -> Vec<f64> {
        let (m, k, n) = (av.rows, av.cols, bv.cols);
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let s: f64 = (0..k)
                    .map(|l| a[av.off + i * av.rs + l * av.cs] * b[bv.off + l * bv.rs + j * bv.cs])
                    .sum();
                let c = if beta == 0.0 { 0.0 } else { beta * c0[cv.off + i * cv.rs + j * cv.cs] };
                out[j * m + i] = alpha * s + c;
            }
        }
        out
    }

    #[test]
    fn both_backends_match_the_definition_on_strided_views() {
        // (m, k, n): below and above the kernels' register blocks, k = 0 and 1, and
        // the panel shapes of the blocked rounds.
        let sizes = [(7, 5, 3), (1, 9, 1), (40, 1, 17), (13, 0, 6), (130, 128, 64), (64, 300, 33)];
        for (m, k, n) in sizes {
            for (trans_a, trans_b, row_c) in
                [(false, false, false), (true, true, true), (true, false, true)]
            {
                // Storage with an offset and a leading dimension larger than the rows.
                let av = if trans_a {
                    View { rows: m, cols: k, off: 3, rs: k + 2, cs: 1 }
                } else {
                    View::col_major(m, k, 3, m + 1)
                };
                let bv = if trans_b {
                    View::col_major(k, n, 1, k + 3)
                } else {
                    View { rows: k, cols: n, off: 1, rs: n, cs: 1 }
                };
                let cv = if row_c {
                    View { rows: m, cols: n, off: 2, rs: n + 1, cs: 1 }
                } else {
                    View::col_major(m, n, 2, m + 2)
                };
                let len = |v: View| v.end().max(v.off) + 4;
                let a: Vec<f64> = (0..len(av)).map(|i| (i as f64 * 0.3).sin()).collect();
                let b: Vec<f64> = (0..len(bv)).map(|i| (i as f64 * 0.7).cos()).collect();
                let c0: Vec<f64> = (0..len(cv)).map(|i| (i as f64 * 0.1).sin()).collect();
                for (alpha, beta) in [(2.0, 0.5), (-1.0, 1.0), (1.0, 0.0)] {
                    let want = naive(alpha, &a, av, &b, bv, beta, &c0, cv);
                    for backend in Backend::ALL {
                        let mut c = c0.clone();
                        if beta == 0.0 {
                            // C is not read: NaN inside the view must not leak.
                            for i in 0..m {
                                for j in 0..n {
                                    c[cv.off + i * cv.rs + j * cv.cs] = f64::NAN;
                                }
                            }
                        }
                        gemm_on(backend, alpha, &a, av, &b, bv, beta, &mut c, cv);
                        for i in 0..m {
                            for j in 0..n {
                                let (got, e) = (c[cv.off + i * cv.rs + j * cv.cs], want[j * m + i]);
                                let tol = 1e-13 * (1.0 + k as f64);
                                assert!(
                                    (got - e).abs() <= tol,
                                    "{backend:?} {m}x{k}x{n} ({i},{j}): {got} vs {e}"
                                );
                            }
                        }
                        // Outside the view, C is untouched.
                        let inside = |t: usize| {
                            t >= cv.off && {
                                let d = t - cv.off;
                                let (i, j) = if row_c {
                                    (d / cv.rs, d % cv.rs)
                                } else {
                                    (d % cv.cs, d / cv.cs)
                                };
                                i < m && j < n
                            }
                        };
                        for (t, (&x, &y)) in c.iter().zip(&c0).enumerate() {
                            if !inside(t) {
                                assert_eq!(
                                    x.to_bits(),
                                    y.to_bits(),
                                    "{backend:?} wrote outside C at {t}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_gemm_crate_runs_only_on_a_cpu_with_its_feature_sets() {
        // Under qemu's SSE4.2-only CPU (.ci/qemu, KERNELSTREAM_EXPECT_SIMD=baseline) and
        // with KERNELSTREAM_SIMD=baseline: matrixmultiply.
        if crate::simd::selected() == crate::simd::Path::Baseline {
            assert_eq!(selected(), Backend::MatrixMultiply);
        }
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx2") {
            assert!(!Backend::Gemm.supported());
        }
        if std::env::var("KERNELSTREAM_EXPECT_SIMD").as_deref() == Ok("baseline") {
            assert_eq!(selected(), Backend::MatrixMultiply);
        }
    }
}
