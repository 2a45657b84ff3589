//! A growing lower Cholesky factor `L L^T = A` stored by columns (`cols[k]` holds
//! `L[k..m, k]`, the diagonal first), for the Nystrom forecaster (PKAWV paper
//! sec. 3.2 and App. H, Algorithm 2; docs/choices.md, "Nyström variant"): every column is a contiguous slice, so the rank-one update
//! (Givens form) and the forward substitution (axpy form) stream it once, and a
//! bordering `A -> [[A, c], [c^T, dd]]` appends one entry per column plus a new
//! column, O(m) moves.
//!
//! A block of `n` rows `K` (between two borderings) takes one pass over the factor
//! with matrix-matrix products ([`ColCholesky::block_solve_update`]): the forward
//! solve `L X = B` for many right-hand sides, and the factor of `L L^T + K^T K`
//! as the triangular factor of the QR decomposition of `[L^T; K]` (Householder
//! reflectors that zero `K` column by column, accumulated over a panel of columns
//! in compact WY form `I - V T V^T`, as LAPACK's `dtpqrt`).

use crate::linalg::blas::{axpy, dot};
use crate::linalg::gemm::{gemm, View};
use serde::{Deserialize, Serialize};

crate::dispatch! {
    /// One column of the Givens rank-one update: `l <- (l + s x) / c`, then
    /// `x <- c x - s l` with the new `l`. Plain multiplies and adds on every path
    /// (no fused multiply-add), so the wider paths give the same bits as the baseline.
    fn givens_column(l: &mut [f64], x: &mut [f64], c: f64, s: f64, inv_c: f64) => givens_column_impl, givens_column_on;
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // compiled per path by `dispatch!`
fn givens_column_impl<I: crate::simd::Isa>(
    l: &mut [f64],
    x: &mut [f64],
    c: f64,
    s: f64,
    inv_c: f64,
) {
    for (l, xi) in l.iter_mut().zip(x.iter_mut()) {
        let lnew = (*l + s * *xi) * inv_c;
        *xi = c * *xi - s * lnew;
        *l = lnew;
    }
}

crate::dispatch! {
    /// Two consecutive Givens columns over the entries both touch: each `x_i` goes through
    /// column `k` (`l0`, rotation `g0 = (c, s, 1/c)`) then column `k + 1` (`l1`, `g1`) with
    /// the operations of [`givens_column`]: the same bits, `x` read and written once.
    fn givens_two_columns(l0: &mut [f64], l1: &mut [f64], x: &mut [f64], g0: [f64; 3], g1: [f64; 3]) => givens_two_columns_impl, givens_two_columns_on;
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // compiled per path by `dispatch!`
fn givens_two_columns_impl<I: crate::simd::Isa>(
    l0: &mut [f64],
    l1: &mut [f64],
    x: &mut [f64],
    g0: [f64; 3],
    g1: [f64; 3],
) {
    let ([c0, s0, i0], [c1, s1, i1]) = (g0, g1);
    for ((a, b), xi) in l0.iter_mut().zip(l1.iter_mut()).zip(x.iter_mut()) {
        let anew = (*a + s0 * *xi) * i0;
        let x1 = c0 * *xi - s0 * anew;
        *a = anew;
        let bnew = (*b + s1 * x1) * i1;
        *xi = c1 * x1 - s1 * bnew;
        *b = bnew;
    }
}

crate::dispatch! {
    /// Two columns `c0 = L[k.., k]`, `c1 = L[k+1.., k+1]` of the forward substitution for
    /// two right-hand sides (`a`, `b`: entries `k..m`), each entry updated by column `k`
    /// then column `k + 1` with the same operations as two passes of [`axpy`]: the same
    /// bits, with `a` and `b` read and written once for both columns.
    fn solve2_two_columns(c0: &[f64], c1: &[f64], a: &mut [f64], b: &mut [f64]) => solve2_two_columns_impl, solve2_two_columns_on;
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // compiled per path by `dispatch!`
fn solve2_two_columns_impl<I: crate::simd::Isa>(
    c0: &[f64],
    c1: &[f64],
    a: &mut [f64],
    b: &mut [f64],
) {
    a[0] /= c0[0];
    b[0] /= c0[0];
    let (a0, b0) = (-a[0], -b[0]);
    a[1] = I::mul_add(a0, c0[1], a[1]);
    b[1] = I::mul_add(b0, c0[1], b[1]);
    a[1] /= c1[0];
    b[1] /= c1[0];
    let (a1, b1) = (-a[1], -b[1]);
    let rows = c0[2..].iter().zip(&c1[1..]).zip(a[2..].iter_mut().zip(b[2..].iter_mut()));
    for ((x0, x1), (ai, bi)) in rows {
        *ai = I::mul_add(a1, *x1, I::mul_add(a0, *x0, *ai));
        *bi = I::mul_add(b1, *x1, I::mul_add(b0, *x0, *bi));
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ColCholesky {
    cols: Vec<Vec<f64>>,
}

impl ColCholesky {
    pub fn new() -> Self {
        ColCholesky { cols: Vec::new() }
    }

    /// Order `m` of the factor.
    pub fn dim(&self) -> usize {
        self.cols.len()
    }

    /// Diagonal entry `L[k, k]`.
    pub fn diag(&self, k: usize) -> f64 {
        self.cols[k][0]
    }

    /// Whether every pivot is finite and strictly positive.
    pub fn is_healthy(&self) -> bool {
        self.cols.iter().all(|c| c[0].is_finite() && c[0] > 0.0)
    }

    /// Solves `L w = b` in place (`b.len() == dim()`).
    pub fn forward_solve(&self, b: &mut [f64]) {
        let m = self.dim();
        for k in 0..m {
            let col = &self.cols[k];
            b[k] /= col[0];
            let wk = b[k];
            axpy(-wk, &col[1..], &mut b[k + 1..m]);
        }
    }

    /// Solves `L w = a` and `L u = b` in place in one sweep over the factor (each
    /// column read once for both); each result is bit-identical to `forward_solve`.
    pub fn forward_solve2(&self, a: &mut [f64], b: &mut [f64]) {
        let m = self.dim();
        let mut k = 0;
        while k + 1 < m {
            let (c0, c1) = (&self.cols[k], &self.cols[k + 1]);
            solve2_two_columns(c0, c1, &mut a[k..m], &mut b[k..m]);
            k += 2;
        }
        if k < m {
            a[k] /= self.cols[k][0];
            b[k] /= self.cols[k][0];
        }
    }

    /// Solves `L w = a` and `L u_j = b_j` for the `k` columns `b_j` of `b` (column
    /// `j` is `b[j s..j s + m]`, stride `s >= m`) in one sweep over the factor;
    /// each result is bit-identical to `forward_solve` (multi-output rounds).
    pub fn forward_solve_many(&self, a: &mut [f64], b: &mut [f64], s: usize, k: usize) {
        let m = self.dim();
        for kk in 0..m {
            let col = &self.cols[kk];
            a[kk] /= col[0];
            let ak = a[kk];
            axpy(-ak, &col[1..], &mut a[kk + 1..m]);
            for bj in b.chunks_exact_mut(s).take(k) {
                bj[kk] /= col[0];
                let bk = bj[kk];
                axpy(-bk, &col[1..], &mut bj[kk + 1..m]);
            }
        }
    }

    /// `L L^T <- L L^T + x x^T` (Givens rotations, LINPACK `dchud` form); `x` is
    /// overwritten. Never fails in exact arithmetic: each new pivot is
    /// `hypot(L_kk, x_k) >= L_kk > 0`.
    pub fn rank_one_update(&mut self, x: &mut [f64]) {
        let m = self.dim();
        let mut k = 0;
        while k < m {
            let Some(g0) = Self::rotation(&mut self.cols[k][0], x[k]) else {
                k += 1;
                continue;
            };
            if k + 1 == m {
                break;
            }
            // Column k on entry k + 1 first: the rotation of column k + 1 needs it (the
            // operations of `givens_column`, plain on every path).
            let (left, right) = self.cols.split_at_mut(k + 1);
            let (c0, c1) = (&mut left[k], &mut right[0]);
            let [c, s, inv_c] = g0;
            let lnew = (c0[1] + s * x[k + 1]) * inv_c;
            x[k + 1] = c * x[k + 1] - s * lnew;
            c0[1] = lnew;
            match Self::rotation(&mut c1[0], x[k + 1]) {
                Some(g1) => {
                    givens_two_columns(&mut c0[2..], &mut c1[1..], &mut x[k + 2..m], g0, g1)
                }
                None => givens_column(&mut c0[2..], &mut x[k + 2..m], g0[0], g0[1], g0[2]),
            }
            k += 2;
        }
    }

    /// The Givens rotation `(c, s, 1/c)` that folds `x_k` into the pivot `l_kk` (updated
    /// to `hypot(l_kk, x_k)`); None when `x_k = 0` (the column is left as it is).
    fn rotation(lkk: &mut f64, xk: f64) -> Option<[f64; 3]> {
        if xk == 0.0 {
            return None;
        }
        let r = lkk.hypot(xk);
        let (c, s) = (r / *lkk, xk / *lkk);
        *lkk = r;
        Some([c, s, 1.0 / c])
    }

    /// `L <- s L` (`L L^T <- s^2 L L^T`).
    pub fn scale(&mut self, s: f64) {
        self.cols.iter_mut().flatten().for_each(|v| *v *= s);
    }

    /// Borders the factor: `r = L^{-1} c` (given) and pivot `rho > 0` make the new last row.
    pub fn extend(&mut self, r: &[f64], rho: f64) {
        for (col, &rk) in self.cols.iter_mut().zip(r) {
            col.push(rk);
        }
        self.cols.push(vec![rho]);
    }

    /// Dense row-major copy of `L` (tests, diagnostics).
    pub fn to_dense(&self) -> Vec<f64> {
        let m = self.dim();
        let mut out = vec![0.0; m * m];
        for (k, col) in self.cols.iter().enumerate() {
            for (i, v) in col.iter().enumerate() {
                out[(k + i) * m + k] = *v;
            }
        }
        out
    }

    /// Cholesky factor of a dense symmetric row-major `m x m` matrix, or the index
    /// of the first pivot that is not positive.
    pub fn factor(a: &[f64], m: usize) -> std::result::Result<Self, usize> {
        // Left-looking, column by column.
        let mut cols: Vec<Vec<f64>> = Vec::with_capacity(m);
        for j in 0..m {
            let mut col: Vec<f64> = (j..m).map(|i| a[i * m + j]).collect();
            for (k, ck) in cols.iter().enumerate() {
                // L[j, k] = ck[j - k]; column j of L gets -L[i, k] L[j, k] for i >= j.
                let ljk = ck[j - k];
                axpy(-ljk, &ck[j - k..], &mut col);
            }
            let piv = col[0];
            if !(piv.is_finite() && piv > 0.0) {
                return Err(j);
            }
            let d = piv.sqrt();
            col[0] = d;
            for v in col[1..].iter_mut() {
                *v /= d;
            }
            cols.push(col);
        }
        Ok(ColCholesky { cols })
    }
}

/// Columns of the factor per panel of [`ColCholesky::block_solve_update`].
pub const PANEL: usize = 32;

/// Scratch of [`ColCholesky::block_solve_update`] (kept between blocks).
#[derive(Debug, Default)]
pub struct BlockScratch {
    /// Panel `L[j0..m, j0..j1]` (column-major), then the panel rows of the new `R`.
    lp: Vec<f64>,
    /// `K` column-major (`n x m`); its panel columns take the reflectors `V`.
    kt: Vec<f64>,
    tau: Vec<f64>,
    /// `T` of the compact WY form (column-major `nb x nb`, upper triangular).
    t: Vec<f64>,
    w: Vec<f64>,
    w2: Vec<f64>,
}

impl Clone for BlockScratch {
    /// Scratch is not state: a copy starts empty.
    fn clone(&self) -> Self {
        BlockScratch::default()
    }
}

impl ColCholesky {
    /// Gives `self` the shape of a factor of order `m` (contents unspecified).
    fn reshape(&mut self, m: usize) {
        self.cols.resize_with(m, Vec::new);
        for (j, c) in self.cols.iter_mut().enumerate() {
            c.resize(m - j, 0.0);
        }
    }

    /// One pass over `L` for a block of `n` rows `K` (row-major `n x m`):
    /// solves `L X = B` in place for `B` row-major `m x c` (`c` right-hand sides,
    /// the result equals [`Self::forward_solve`] on each column up to rounding) and,
    /// when `next` is given, writes into it the factor `L'` with
    /// `L' L'^T = L L^T + K^T K` (positive diagonal), leaving `self` unchanged.
    ///
    /// `L'^T` is the `R` of the QR decomposition of `[L^T; K]`: for each column `j`
    /// a Householder reflector on `[R_jj; K_{:,j}]` zeros `K_{:,j}`; it touches row
    /// `j` of `R` (column `j` of `L`) and the rows of `K` only, so each column of
    /// `L` is read and written once, in panels of [`PANEL`] columns whose
    /// reflectors are applied to the trailing columns as two matrix-matrix
    /// products. Cost `(c + 2 n + PANEL) m^2` flops.
    pub fn block_solve_update(
        &self,
        rhs: &mut [f64],
        c: usize,
        k: &[f64],
        n: usize,
        sc: &mut BlockScratch,
        mut next: Option<&mut ColCholesky>,
    ) {
        let m = self.dim();
        assert!(rhs.len() == m * c && k.len() == n * m, "block_solve_update: shapes");
        if let Some(nx) = next.as_deref_mut() {
            nx.reshape(m);
            sc.kt.clear();
            sc.kt.resize(n * m, 0.0);
            for (i, row) in k.chunks_exact(m.max(1)).enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    sc.kt[j * n + i] = v;
                }
            }
        }
        let mut j0 = 0;
        while j0 < m {
            let j1 = (j0 + PANEL).min(m);
            let (nb, ld, mt) = (j1 - j0, m - j0, m - j1);
            // The panel L[j0..m, j0..j1], column-major with leading dimension ld.
            sc.lp.clear();
            sc.lp.resize(ld * nb, 0.0);
            for (jj, col) in self.cols[j0..j1].iter().enumerate() {
                sc.lp[jj * ld + jj..(jj + 1) * ld].copy_from_slice(col);
            }
            // Forward substitution on the rows j0..j1 (axpy form inside the panel) ...
            for jj in 0..nb {
                let piv = sc.lp[jj * ld + jj];
                let (head, tail) = rhs.split_at_mut((j0 + jj + 1) * c);
                let xj = &mut head[(j0 + jj) * c..];
                xj.iter_mut().for_each(|v| *v /= piv);
                for ii in jj + 1..nb {
                    axpy(-sc.lp[jj * ld + ii], xj, &mut tail[(ii - jj - 1) * c..(ii - jj) * c]);
                }
            }
            // ... then X[j1..m] -= L[j1..m, j0..j1] X[j0..j1].
            if mt > 0 {
                let (top, bot) = rhs.split_at_mut(j1 * c);
                let rows = |rows, off| View { rows, cols: c, off, rs: c, cs: 1 };
                gemm(
                    -1.0,
                    &sc.lp,
                    View::col_major(mt, nb, nb, ld),
                    top,
                    rows(nb, j0 * c),
                    1.0,
                    bot,
                    rows(mt, 0),
                );
            }
            if let Some(nx) = next.as_deref_mut() {
                sc.qr_panel(n, j0, nb, ld);
                // Row j of R is final: store it as column j of L', with a positive pivot.
                for (jj, col) in nx.cols[j0..j1].iter_mut().enumerate() {
                    let src = &sc.lp[jj * ld + jj..(jj + 1) * ld];
                    if src[0] < 0.0 {
                        col.iter_mut().zip(src).for_each(|(a, b)| *a = -b);
                    } else {
                        col.copy_from_slice(src);
                    }
                }
            }
            j0 = j1;
        }
    }
}

impl BlockScratch {
    /// The reflectors of the panel columns `j0..j0+nb` of `[R; K]` (`R` rows in
    /// `lp`: `R[j0+jj, j0+kk]` at `lp[jj ld + kk]`; `K` in `kt`), applied to the
    /// panel, then to the trailing columns in compact WY form:
    /// `W = T^T (R_p + V^T K_t)`, `R_p -= W`, `K_t -= V W`.
    fn qr_panel(&mut self, n: usize, j0: usize, nb: usize, ld: usize) {
        let mt = ld - nb;
        self.tau.clear();
        self.tau.resize(nb, 0.0);
        let (lp, kt) = (&mut self.lp, &mut self.kt);
        for jj in 0..nb {
            let j = j0 + jj;
            let alpha = lp[jj * ld + jj];
            let (vpart, rest) = kt[j * n..].split_at_mut(n);
            let xnorm = dot(vpart, vpart).sqrt();
            if xnorm == 0.0 {
                continue; // H = I
            }
            // dlarfg: beta = -sign(alpha) ||(alpha, x)||, v = (1, x / (alpha - beta)),
            // tau = (beta - alpha) / beta (no cancellation; the pivot sign is fixed later).
            let beta = -alpha.signum() * alpha.hypot(xnorm);
            let scale = 1.0 / (alpha - beta);
            vpart.iter_mut().for_each(|v| *v *= scale);
            let tau = (beta - alpha) / beta;
            self.tau[jj] = tau;
            lp[jj * ld + jj] = beta;
            // Apply H_j to the later panel columns.
            for kk in jj + 1..nb {
                let ck = &mut rest[(kk - jj - 1) * n..(kk - jj) * n];
                let s = tau * (lp[jj * ld + kk] + dot(vpart, ck));
                lp[jj * ld + kk] -= s;
                axpy(-s, vpart, ck);
            }
        }
        if mt == 0 {
            return;
        }
        // T (dlarft, forward columnwise): T_jj = tau_j, T[..j, j] = -tau_j T[..j, ..j] V^T v_j
        // (the unit parts of the reflectors lie in distinct rows of R).
        let t = &mut self.t;
        t.clear();
        t.resize(nb * nb, 0.0);
        let v = &kt[j0 * n..(j0 + nb) * n];
        for jj in 0..nb {
            let tau = self.tau[jj];
            t[jj * nb + jj] = tau;
            if tau == 0.0 {
                continue;
            }
            let vj = &v[jj * n..(jj + 1) * n];
            let z: Vec<f64> = (0..jj).map(|ii| dot(&v[ii * n..(ii + 1) * n], vj)).collect();
            for ii in 0..jj {
                let s: f64 = (ii..jj).map(|kk| t[kk * nb + ii] * z[kk]).sum();
                t[jj * nb + ii] = -tau * s;
            }
        }
        // W = R_p + V^T K_t (nb x mt, column-major).
        let (vs, ktr) = kt.split_at_mut((j0 + nb) * n);
        let vv = View::col_major(n, nb, j0 * n, n);
        let w = &mut self.w;
        w.clear();
        w.resize(nb * mt, 0.0);
        for jj in 0..nb {
            for (cc, &r) in lp[jj * ld + nb..(jj + 1) * ld].iter().enumerate() {
                w[cc * nb + jj] = r;
            }
        }
        let wv = View::col_major(nb, mt, 0, nb);
        gemm(1.0, vs, vv.t(), ktr, View::col_major(n, mt, 0, n), 1.0, w, wv);
        // W2 = T^T W; R_p -= W2; K_t -= V W2.
        let w2 = &mut self.w2;
        w2.clear();
        w2.resize(nb * mt, 0.0);
        gemm(1.0, t, View::col_major(nb, nb, 0, nb).t(), w, wv, 0.0, w2, wv);
        for jj in 0..nb {
            for (cc, r) in lp[jj * ld + nb..(jj + 1) * ld].iter_mut().enumerate() {
                *r -= w2[cc * nb + jj];
            }
        }
        gemm(-1.0, vs, vv, w2, wv, 1.0, ktr, View::col_major(n, mt, 0, n));
    }
}

impl ColCholesky {
    /// Invariants of a decoded factor: column `k` holds `m - k` finite values, a positive pivot first.
    pub fn validate(&self) -> crate::Result<()> {
        let m = self.dim();
        for (k, c) in self.cols.iter().enumerate() {
            crate::state::len_is("a Cholesky column", c.len(), m - k)?;
            crate::state::finite("a Cholesky column", c)?;
            crate::state::ensure(c[0] > 0.0, || format!("Cholesky pivot {k} is <= 0"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn givens_column_is_the_same_on_every_path() {
        let mut rng = Rng::new(3);
        let l0: Vec<f64> = (0..203).map(|_| rng.normal()).collect();
        let x0: Vec<f64> = (0..203).map(|_| rng.normal()).collect();
        let (c, s) = (1.3f64, 0.7f64);
        let mut want = None;
        for p in crate::simd::Path::ALL {
            let (mut l, mut x) = (l0.clone(), x0.clone());
            givens_column_on(p, &mut l, &mut x, c, s, 1.0 / c);
            let bits: Vec<u64> = l.iter().chain(&x).map(|v| v.to_bits()).collect();
            assert_eq!(want.get_or_insert_with(|| bits.clone()), &bits, "{p:?}");
        }
    }

    fn spd(m: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let b: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum::<f64>()
                    + if i == j { 0.5 } else { 0.0 };
            }
        }
        a
    }

    fn llt(l: &ColCholesky) -> Vec<f64> {
        let m = l.dim();
        let d = l.to_dense();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| d[i * m + k] * d[j * m + k]).sum();
            }
        }
        a
    }

    #[test]
    fn rank_one_update_is_column_by_column_givens_bit_for_bit() {
        // The update one column at a time (LINPACK dchud), the reference for the pairs.
        fn by_columns(l: &mut ColCholesky, x: &mut [f64]) {
            let m = l.dim();
            for k in 0..m {
                let (lkk, xk) = (l.cols[k][0], x[k]);
                if xk == 0.0 {
                    continue;
                }
                let r = lkk.hypot(xk);
                let (c, s) = (r / lkk, xk / lkk);
                l.cols[k][0] = r;
                givens_column(&mut l.cols[k][1..], &mut x[k + 1..m], c, s, 1.0 / c);
            }
        }
        for m in [1, 2, 3, 4, 17, 64, 65] {
            // zeros where a column is skipped: alone, in a pair's first or second place
            for zeros in [vec![], vec![0], vec![1], vec![m / 2], vec![0, 1, m - 1]] {
                let l0 = ColCholesky::factor(&spd(m, 5), m).unwrap();
                let mut x: Vec<f64> = (0..m).map(|i| (0.9 * i as f64 + 0.4).sin()).collect();
                zeros.iter().filter(|&&i| i < m).for_each(|&i| x[i] = 0.0);
                let (mut a, mut xa) = (l0.clone(), x.clone());
                by_columns(&mut a, &mut xa);
                let (mut b, mut xb) = (l0, x);
                b.rank_one_update(&mut xb);
                assert_eq!((a.cols, xa), (b.cols, xb), "m = {m}, zeros {zeros:?}");
            }
            // A diagonal factor keeps a zero entry zero after the column before it: the
            // second column of a pair skipped.
            let diag: Vec<f64> =
                (0..m * m).map(|i| if i % (m + 1) == 0 { 2.0 } else { 0.0 }).collect();
            let l0 = ColCholesky::factor(&diag, m).unwrap();
            let x: Vec<f64> =
                (0..m).map(|i| if i % 2 == 1 { 0.0 } else { 1.0 + i as f64 }).collect();
            let (mut a, mut xa) = (l0.clone(), x.clone());
            by_columns(&mut a, &mut xa);
            let (mut b, mut xb) = (l0, x);
            b.rank_one_update(&mut xb);
            assert_eq!((a.cols, xa), (b.cols, xb), "m = {m}, diagonal");
        }
    }

    #[test]
    fn forward_solve2_is_two_forward_solves_bit_for_bit() {
        // Columns taken two at a time, with an odd order's last column alone.
        for m in [1, 2, 3, 4, 17, 64, 65] {
            let l = ColCholesky::factor(&spd(m, 3), m).unwrap();
            let x: Vec<f64> = (0..m).map(|i| (1.7 * i as f64).sin()).collect();
            let z: Vec<f64> = (0..m).map(|i| (0.3 * i as f64).cos() * 1e3).collect();
            let (mut w, mut v) = (x.clone(), z.clone());
            l.forward_solve(&mut w);
            l.forward_solve(&mut v);
            let (mut w2, mut v2) = (x, z);
            l.forward_solve2(&mut w2, &mut v2);
            assert_eq!((w, v), (w2, v2), "m = {m}");
        }
    }

    #[test]
    fn factor_update_extend_solve() {
        let m = 9;
        let a = spd(m, 1);
        let mut l = ColCholesky::factor(&a, m).unwrap();
        for (x, y) in llt(&l).iter().zip(&a) {
            assert!((x - y).abs() < 1e-10);
        }
        // Rank-one update.
        let x: Vec<f64> = (0..m).map(|i| (i as f64).sin()).collect();
        let mut xx = x.clone();
        l.rank_one_update(&mut xx);
        let up = llt(&l);
        for i in 0..m {
            for j in 0..m {
                assert!((up[i * m + j] - a[i * m + j] - x[i] * x[j]).abs() < 1e-10);
            }
        }
        // Forward solve (one and two right-hand sides agree bit for bit).
        let mut w = x.clone();
        l.forward_solve(&mut w);
        let (mut w2, mut v2) = (x.clone(), a[..m].to_vec());
        l.forward_solve2(&mut w2, &mut v2);
        let mut v = a[..m].to_vec();
        l.forward_solve(&mut v);
        assert_eq!(w, w2);
        assert_eq!(v, v2);
        let d = l.to_dense();
        for i in 0..m {
            let s: f64 = (0..m).map(|k| d[i * m + k] * w[k]).sum();
            assert!((s - x[i]).abs() < 1e-10);
        }
        // Extension equals factoring the bordered matrix.
        let big = spd(m + 1, 2);
        let mut l2 = ColCholesky::factor(&big[..], m + 1).unwrap();
        let small: Vec<f64> =
            (0..m).flat_map(|i| big[i * (m + 1)..i * (m + 1) + m].to_vec()).collect();
        let mut l1 = ColCholesky::factor(&small, m).unwrap();
        let mut r: Vec<f64> = (0..m).map(|i| big[m * (m + 1) + i]).collect();
        l1.forward_solve(&mut r);
        let rho = (big[(m + 1) * (m + 1) - 1] - r.iter().map(|v| v * v).sum::<f64>()).sqrt();
        l1.extend(&r, rho);
        for (x, y) in l1.to_dense().iter().zip(l2.to_dense().iter()) {
            assert!((x - y).abs() < 1e-10);
        }
        assert!(l2.is_healthy());
        l2.cols[3][0] = f64::NAN;
        assert!(!l2.is_healthy());
        assert!(ColCholesky::factor(&[1.0, 2.0, 2.0, 1.0], 2).is_err());
    }

    #[test]
    fn block_solve_update_equals_rank_one_updates() {
        for (m, n) in [(1, 1), (3, 2), (33, 1), (70, 5), (97, 40)] {
            let a = spd(m, 3 + m as u64);
            let l = ColCholesky::factor(&a, m).unwrap();
            let mut rng = Rng::new(m as u64);
            let k: Vec<f64> = (0..n * m).map(|_| rng.normal()).collect();
            let c = n + 2;
            let b: Vec<f64> = (0..m * c).map(|_| rng.normal()).collect();
            let mut x = b.clone();
            let mut next = ColCholesky::new();
            let mut sc = BlockScratch::default();
            l.block_solve_update(&mut x, c, &k, n, &mut sc, Some(&mut next));
            // The solve, column by column.
            for col in 0..c {
                let mut e: Vec<f64> = (0..m).map(|i| b[i * c + col]).collect();
                l.forward_solve(&mut e);
                for i in 0..m {
                    assert!((x[i * c + col] - e[i]).abs() <= 1e-10 * (1.0 + e[i].abs()));
                }
            }
            // L' L'^T = A + K^T K, positive pivots, and the same factor as n Givens updates.
            next.validate().unwrap();
            let up = llt(&next);
            let mut seq = l.clone();
            for row in k.chunks_exact(m) {
                seq.rank_one_update(&mut row.to_vec());
            }
            let scale = up.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            for i in 0..m {
                for j in 0..m {
                    let e = a[i * m + j] + (0..n).map(|r| k[r * m + i] * k[r * m + j]).sum::<f64>();
                    assert!((up[i * m + j] - e).abs() <= 1e-12 * scale, "m={m} n={n}");
                }
            }
            for (p, q) in next.to_dense().iter().zip(seq.to_dense()) {
                assert!((p - q).abs() <= 1e-10 * scale.sqrt());
            }
            // Solve only: the factor is left alone.
            let mut x2 = b.clone();
            l.block_solve_update(&mut x2, c, &k, n, &mut sc, None);
            assert_eq!(x, x2);
        }
    }
}
