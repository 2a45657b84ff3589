//! Matrix-matrix products (BLAS-3) on strided views of slices, through
//! `matrixmultiply` (nalgebra's own product kernel), which chooses its
//! AVX2/FMA or SSE2 micro-kernel at run time: nothing machine-specific in the build.

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

/// `C = alpha A B + beta C` (`A` is `m x k`, `B` is `k x n`, `C` is `m x n`).
/// Shapes and bounds are checked (an internal invariant: a violation panics).
#[allow(clippy::too_many_arguments)]
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
    let (m, k, n) = (av.rows, av.cols, bv.cols);
    assert!(bv.rows == k && cv.rows == m && cv.cols == n, "gemm: shapes do not conform");
    assert!(
        av.end() <= a.len() && bv.end() <= b.len() && cv.end() <= c.len(),
        "gemm: view out of bounds"
    );
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: every index the product touches lies inside its slice (checked
    // above); `c` is a unique borrow, so it does not alias `a` or `b`.
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr().add(av.off.min(a.len())),
            av.rs as isize,
            av.cs as isize,
            b.as_ptr().add(bv.off.min(b.len())),
            bv.rs as isize,
            bv.cs as isize,
            beta,
            c.as_mut_ptr().add(cv.off),
            cv.rs as isize,
            cv.cs as isize,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_matches_naive_with_transposes() {
        let (m, k, n) = (7usize, 5usize, 3usize);
        let a: Vec<f64> = (0..m * k).map(|i| (i as f64 * 0.3).sin()).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i as f64 * 0.7).cos()).collect();
        let mut c = vec![1.0; m * n];
        // A column-major (ld m), B row-major = transpose of column-major n x k.
        let bv = View::col_major(n, k, 0, n).t();
        gemm(
            2.0,
            &a,
            View::col_major(m, k, 0, m),
            &b,
            bv,
            0.5,
            &mut c,
            View::col_major(m, n, 0, m),
        );
        for i in 0..m {
            for j in 0..n {
                let e: f64 = (0..k).map(|l| a[l * m + i] * b[l * n + j]).sum::<f64>() * 2.0 + 0.5;
                assert!((c[j * m + i] - e).abs() < 1e-12);
            }
        }
    }
}
