//! The rank-one update `L L^T <- L L^T + x x^T` (Givens rotations, two columns at a
//! time).

use super::ColCholesky;

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

impl ColCholesky {
    /// `L L^T <- L L^T + x x^T` (Givens rotations, LINPACK `dchud` form); `x` is
    /// overwritten. Never fails in exact arithmetic: each new pivot is
    /// `sqrt(L_kk^2 + x_k^2) >= L_kk > 0`.
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
    /// to `sqrt(l_kk^2 + x_k^2)`, [`pivot`]); None when `x_k = 0` (the column is left as it is).
    fn rotation(lkk: &mut f64, xk: f64) -> Option<[f64; 3]> {
        if xk == 0.0 {
            return None;
        }
        let r = pivot(*lkk, xk);
        let (c, s) = (r / *lkk, xk / *lkk);
        *lkk = r;
        Some([c, s, 1.0 / c])
    }
}

/// `sqrt(l^2 + x^2)`, the new pivot of a rotation: by the fused square root when the
/// larger of `|l|`, `|x|` is within `[1e-150, 1e150]` (no square overflows, an
/// underflowing one is below an ulp of the sum; within an ulp of `hypot`, at a fraction
/// of its cost: a served round's rank-one updates take one a column), else `hypot`.
#[inline]
fn pivot(l: f64, x: f64) -> f64 {
    let big = l.abs().max(x.abs());
    if (1e-150..=1e150).contains(&big) {
        l.mul_add(l, x * x).sqrt()
    } else {
        l.hypot(x)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::spd;
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
                let r = pivot(lkk, xk);
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
    fn pivot_is_hypot_to_an_ulp_and_safe_at_the_extremes() {
        let mut rng = Rng::new(11);
        for _ in 0..2000 {
            let (l, x) = (rng.normal().abs() + 1e-3, rng.normal());
            for scale in [1.0, 1e-140, 1e140] {
                let (a, b) = (l * scale, x * scale);
                let (p, h) = (pivot(a, b), a.hypot(b));
                assert!((p - h).abs() <= 2.0 * f64::EPSILON * h, "{a} {b}: {p} vs {h}");
            }
        }
        // outside the range the squares would overflow or underflow: hypot itself
        for (a, b) in [(1e200, 3e199), (1e-200, 2e-201), (f64::MAX, 1.0), (1e-310, 1e-311)] {
            assert_eq!(pivot(a, b).to_bits(), a.hypot(b).to_bits());
        }
        assert_eq!(pivot(3.0, 4.0), 5.0);
    }
}
