//! A block of `n` rows `K` in one pass over the factor: the forward solve for many
//! right-hand sides and the factor of `L L^T + K^T K` (the module documentation).

use super::ColCholesky;
use crate::linalg::blas::{axpy, dot};
use crate::linalg::gemm::{gemm, View};

/// Columns of the factor per panel of [`ColCholesky::block_solve_update`] on factors of
/// order `>= 400`; [`SMALL_PANEL`] below.
pub const PANEL: usize = 32;
/// Panel of the factors of order `< 400` (AutoKernel's 200-point dictionaries: measured
/// 1.02-1.11x faster rounds than [`PANEL`], docs/choices.md).
pub const SMALL_PANEL: usize = 16;
/// Columns of the factor per pass of the forward solve of
/// [`ColCholesky::block_solve_update`] (the QR panels lie inside it): its trailing
/// products run on `OUTER_PANEL` columns, the solve inside it by halves.
pub const OUTER_PANEL: usize = 64;

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
    /// `V^T V` of the panel's reflectors (column-major `nb x nb`).
    z: Vec<f64>,
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
    /// `L` is read and written once, in panels of [`PANEL`] ([`SMALL_PANEL`]) columns whose
    /// reflectors are applied to the trailing columns as two matrix-matrix
    /// products. Cost `(c + 2 n + PANEL) m^2` flops. The columns are read in outer
    /// panels of [`OUTER_PANEL`] columns holding the QR panels: the forward solve's
    /// trailing product spans the outer panel, the solve inside it runs by halves with
    /// a product between them (level-3 down to `SOLVE_LEAF` rows), which measured
    /// 1.2x faster blocks than a solve in the QR's panels at `m = 200, n = 64`.
    pub fn block_solve_update(
        &self,
        rhs: &mut [f64],
        c: usize,
        k: &[f64],
        n: usize,
        sc: &mut BlockScratch,
        next: Option<&mut ColCholesky>,
    ) {
        let m = self.dim();
        assert!(rhs.len() == m * c && k.len() == n * m, "block_solve_update: shapes");
        if next.is_some() {
            sc.kt.clear();
            sc.kt.resize(n * m, 0.0);
            transpose(k, n, m, &mut sc.kt);
        }
        self.solve_update_on(rhs, c, n, sc, next, OUTER_PANEL);
    }

    /// [`Self::block_solve_update`] with the block given transposed: `kt = K^T`
    /// (row-major `m x n`, row `j` the column `j` of `K`).
    pub fn block_solve_update_t(
        &self,
        rhs: &mut [f64],
        c: usize,
        kt: &[f64],
        n: usize,
        sc: &mut BlockScratch,
        next: Option<&mut ColCholesky>,
    ) {
        let m = self.dim();
        assert!(rhs.len() == m * c && kt.len() == n * m, "block_solve_update: shapes");
        if next.is_some() {
            sc.kt.clear();
            sc.kt.extend_from_slice(kt);
        }
        self.solve_update_on(rhs, c, n, sc, next, OUTER_PANEL);
    }

    /// [`Self::block_solve_update`] with `K^T` in `sc.kt` (when `next` is given).
    fn solve_update_on(
        &self,
        rhs: &mut [f64],
        c: usize,
        n: usize,
        sc: &mut BlockScratch,
        mut next: Option<&mut ColCholesky>,
        outer: usize,
    ) {
        let m = self.dim();
        if let Some(nx) = next.as_deref_mut() {
            nx.reshape(m);
        }
        let panel = if m < 400 { SMALL_PANEL } else { PANEL };
        let mut j0 = 0;
        while j0 < m {
            let j1 = (j0 + outer).min(m);
            let (nb, ld, mt) = (j1 - j0, m - j0, m - j1);
            // The outer panel L[j0..m, j0..j1], column-major with leading dimension ld.
            sc.lp.clear();
            sc.lp.resize(ld * nb, 0.0);
            for (jj, col) in self.cols[j0..j1].iter().enumerate() {
                sc.lp[jj * ld + jj..(jj + 1) * ld].copy_from_slice(col);
            }
            // Forward substitution on the rows j0..j1 (recursive halves, gemm between) ...
            solve_rows(&sc.lp, ld, 0, nb, &mut rhs[j0 * c..j1 * c], c);
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
                // The QR in panels of `panel` columns inside the outer panel.
                let mut s0 = 0;
                while s0 < nb {
                    let s1 = (s0 + panel).min(nb);
                    sc.qr_panel(n, j0 + s0, s1 - s0, ld, s0 * ld + s0, ld - s0);
                    s0 = s1;
                }
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

/// `dst = src^T` for `src` row-major `rows x cols` (`dst` row-major `cols x rows`), in
/// tiles of 8 x 8 (both sides stay in cache lines).
pub fn transpose(src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    assert!(src.len() == rows * cols && dst.len() == rows * cols, "transpose: shapes");
    const T: usize = 8;
    for i0 in (0..rows).step_by(T) {
        let i1 = (i0 + T).min(rows);
        for j0 in (0..cols).step_by(T) {
            let j1 = (j0 + T).min(cols);
            for i in i0..i1 {
                let r = &src[i * cols + j0..i * cols + j1];
                for (jj, &v) in r.iter().enumerate() {
                    dst[(j0 + jj) * rows + i] = v;
                }
            }
        }
    }
}

/// Rows of the forward solve per leaf of [`solve_rows`] (axpy form below).
const SOLVE_LEAF: usize = 16;

/// Solves the rows `a..b` of `L X = B` in place for the panel `L` in `lp` (column `jj`
/// at `lp[jj ld..]`, rows relative to the panel's first) and `x` the panel's rows of `B`
/// (row-major, `c` columns), the rows before `a` already solved and eliminated:
/// halves recursively, the second half updated by a matrix-matrix product.
fn solve_rows(lp: &[f64], ld: usize, a: usize, b: usize, x: &mut [f64], c: usize) {
    if b - a <= SOLVE_LEAF {
        for jj in a..b {
            let inv = 1.0 / lp[jj * ld + jj];
            let (head, tail) = x.split_at_mut((jj + 1) * c);
            let xj = &mut head[jj * c..];
            xj.iter_mut().for_each(|v| *v *= inv);
            for ii in jj + 1..b {
                axpy(-lp[jj * ld + ii], xj, &mut tail[(ii - jj - 1) * c..(ii - jj) * c]);
            }
        }
        return;
    }
    let h = a + ((b - a) / 2).next_multiple_of(SOLVE_LEAF).min(b - a - 1);
    solve_rows(lp, ld, a, h, x, c);
    let (top, bot) = x.split_at_mut(h * c);
    let rows = |rows, off| View { rows, cols: c, off, rs: c, cs: 1 };
    gemm(
        -1.0,
        lp,
        View::col_major(b - h, h - a, a * ld + h, ld),
        top,
        rows(h - a, a * c),
        1.0,
        bot,
        rows(b - h, 0),
    );
    solve_rows(lp, ld, h, b, x, c);
}

impl BlockScratch {
    /// The reflectors of the panel columns `j0..j0+nb` of `[R; K]` (`R` rows in
    /// `lp`: `R[j0+jj, j0+kk]` at `lp[base + jj ld + kk]` for `kk < len = m - j0`;
    /// `K` in `kt`), applied to the
    /// panel, then to the trailing columns in compact WY form:
    /// `W = T^T (R_p + V^T K_t)`, `R_p -= W`, `K_t -= V W`.
    fn qr_panel(&mut self, n: usize, j0: usize, nb: usize, ld: usize, base: usize, len: usize) {
        let mt = len - nb;
        self.tau.clear();
        self.tau.resize(nb, 0.0);
        let (lp, kt) = (&mut self.lp[base..], &mut self.kt);
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
        // The inner products V^T V of the reflectors in one product (column jj of z
        // holds v_kk^T v_jj at row kk).
        let v = &kt[j0 * n..(j0 + nb) * n];
        let z = &mut self.z;
        z.clear();
        z.resize(nb * nb, 0.0);
        let vn = View::col_major(n, nb, 0, n);
        gemm(1.0, v, vn.t(), v, vn, 0.0, z, View::col_major(nb, nb, 0, nb));
        for jj in 0..nb {
            let tau = self.tau[jj];
            t[jj * nb + jj] = tau;
            if tau == 0.0 {
                continue;
            }
            let zj = &z[jj * nb..jj * nb + jj];
            for ii in 0..jj {
                let s: f64 = (ii..jj).map(|kk| t[kk * nb + ii] * zj[kk]).sum();
                t[jj * nb + ii] = -tau * s;
            }
        }
        // W^T = R_p^T + K_t^T V (mt x nb, column-major: column jj is row jj of R_p,
        // so that the panel rows are copied in and out whole).
        let (vs, ktr) = kt.split_at_mut((j0 + nb) * n);
        let vv = View::col_major(n, nb, j0 * n, n);
        let ktv = View::col_major(n, mt, 0, n);
        let w = &mut self.w;
        w.clear();
        w.resize(nb * mt, 0.0);
        for (jj, wc) in w.chunks_exact_mut(mt).enumerate() {
            wc.copy_from_slice(&lp[jj * ld + nb..jj * ld + len]);
        }
        let wv = View::col_major(mt, nb, 0, mt);
        gemm(1.0, ktr, ktv.t(), vs, vv, 1.0, w, wv);
        // W2^T = W^T T; R_p -= W2; K_t -= V W2.
        let w2 = &mut self.w2;
        w2.clear();
        w2.resize(nb * mt, 0.0);
        gemm(1.0, w, wv, t, View::col_major(nb, nb, 0, nb), 0.0, w2, wv);
        for (jj, wc) in w2.chunks_exact(mt).enumerate() {
            let r = &mut lp[jj * ld + nb..jj * ld + len];
            r.iter_mut().zip(wc).for_each(|(r, w)| *r -= w);
        }
        gemm(-1.0, vs, vv, w2, wv.t(), 1.0, ktr, ktv);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{llt, spd};
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn block_solve_update_equals_rank_one_updates() {
        for (m, n) in [(1, 1), (3, 2), (33, 1), (70, 5), (97, 40), (161, 23), (430, 9)] {
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
            // K given transposed: the same numbers, bit for bit.
            let mut kt = vec![0.0; n * m];
            transpose(&k, n, m, &mut kt);
            for (i, row) in k.chunks_exact(m).enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    assert_eq!(kt[j * n + i], v);
                }
            }
            let (mut x3, mut next3) = (b.clone(), ColCholesky::new());
            l.block_solve_update_t(&mut x3, c, &kt, n, &mut sc, Some(&mut next3));
            assert_eq!(x3, x);
            assert_eq!(next3.to_dense(), next.to_dense());
            // Solve only: the factor is left alone.
            let mut x2 = b.clone();
            l.block_solve_update(&mut x2, c, &k, n, &mut sc, None);
            assert_eq!(x, x2);
        }
    }
}
