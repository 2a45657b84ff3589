//! Forward substitution `L w = b` (axpy form, each column streamed once), for one,
//! two or many right-hand sides.

use super::ColCholesky;
use crate::linalg::blas::axpy;

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

crate::dispatch! {
    /// Four columns `c[j] = L[k+j.., k+j]` of the forward substitution for one
    /// right-hand side (`b`: entries `k..m`), each entry updated by columns `k` to
    /// `k + 3` in turn with the same operations as four passes of [`axpy`]: the same
    /// bits, with `b` read and written once for the four columns instead of four
    /// times (a served round of `NystromAWV(max_dictionary=200)`: 12.2 -> 11.0 us).
    fn solve_four_columns(c: [&[f64]; 4], b: &mut [f64]) => solve_four_columns_impl, solve_four_columns_on;
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)] // compiled per path by `dispatch!`
fn solve_four_columns_impl<I: crate::simd::Isa>(c: [&[f64]; 4], b: &mut [f64]) {
    let [c0, c1, c2, c3] = c;
    // The 4 x 4 triangle, entry by entry in the order of the axpy passes.
    let mut w = [0.0f64; 4];
    for j in 0..4 {
        for (i, col) in [c0, c1, c2].iter().enumerate().take(j) {
            b[j] = I::mul_add(w[i], col[j - i], b[j]);
        }
        b[j] /= c[j][0];
        w[j] = -b[j];
    }
    let [w0, w1, w2, w3] = w;
    let rows = c0[4..].iter().zip(&c1[3..]).zip(c2[2..].iter().zip(&c3[1..]));
    for (((x0, x1), (x2, x3)), bi) in rows.zip(b[4..].iter_mut()) {
        let v = I::mul_add(w1, *x1, I::mul_add(w0, *x0, *bi));
        *bi = I::mul_add(w3, *x3, I::mul_add(w2, *x2, v));
    }
}

impl ColCholesky {
    /// Solves `L w = b` in place (`b.len() == dim()`), four columns a sweep.
    pub fn forward_solve(&self, b: &mut [f64]) {
        let m = self.dim();
        let mut k = 0;
        while k + 4 <= m {
            let c = [&self.cols[k][..], &self.cols[k + 1], &self.cols[k + 2], &self.cols[k + 3]];
            solve_four_columns(c, &mut b[k..m]);
            k += 4;
        }
        for k in k..m {
            let col = &self.cols[k];
            b[k] /= col[0];
            let wk = b[k];
            axpy(-wk, &col[1..], &mut b[k + 1..m]);
        }
    }

    /// [`Self::forward_solve`] one column at a time (the reference of its bits).
    #[cfg(test)]
    fn forward_solve_by_columns(&self, b: &mut [f64]) {
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::spd;
    use super::*;

    #[test]
    fn forward_solve_is_the_column_by_column_solve_bit_for_bit() {
        // Four columns a sweep, with 0 to 3 columns left alone at the end.
        for m in [1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 64, 66, 200, 203] {
            let l = ColCholesky::factor(&spd(m, 3), m).unwrap();
            let x: Vec<f64> = (0..m).map(|i| (1.7 * i as f64).sin() * 1e2).collect();
            let (mut w, mut w1) = (x.clone(), x.clone());
            l.forward_solve(&mut w);
            l.forward_solve_by_columns(&mut w1);
            let bits = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&w), bits(&w1), "m = {m}");
            // and it solves: |L w - x|_i <= 4 m eps (|L| |w|)_i (backward stable)
            for (i, xi) in x.iter().enumerate() {
                let terms = (0..=i).map(|k| l.cols[k][i - k] * w[k]);
                let (lw, abs) = terms.fold((0.0, 0.0), |(s, a), t| (s + t, a + t.abs()));
                assert!((lw - xi).abs() <= 4.0 * m as f64 * f64::EPSILON * abs, "m = {m}, i = {i}");
            }
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
}
