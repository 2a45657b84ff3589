//! Bounds on stored numbers that follow from the math of the updates, checked when a
//! state is loaded ([`super::ValidState::validate`]): a state whose numbers no learner
//! could have produced (a damaged one, even with its checksum recomputed) is refused
//! instead of predicting `1e305`. Each bound is the exact-arithmetic one widened by
//! [`TOL`] for rounding.

use super::ensure;
use crate::error::Result;

/// Relative slack over an exact-arithmetic bound (rounding over many rounds).
pub const TOL: f64 = 1e-6;

/// `v <= bound` up to [`TOL`].
fn within(v: f64, bound: f64) -> bool {
    v <= bound + TOL * bound.abs()
}

/// A positive-definite matrix `A^{-1}`, packed upper triangle by columns (`(i, j)`,
/// `i <= j`, at `j (j + 1) / 2 + i`), with `A >= a_min I`: every diagonal entry lies in
/// `(0, 1 / a_min]` (the Rayleigh quotient `e_j^T A^{-1} e_j <= 1 / lambda_min(A)`), and
/// every 2 x 2 principal minor is `>= 0`: `a_ij^2 <= a_ii a_jj`.
pub fn inverse_bounds(name: &str, tri: &[f64], r: usize, a_min: f64) -> Result<()> {
    let diag = |j: usize| tri[j * (j + 1) / 2 + j];
    let most = 1.0 / a_min;
    if let Some(j) = (0..r).find(|&j| !(diag(j) > 0.0 && within(diag(j), most))) {
        let v = diag(j);
        return ensure(false, || {
            format!(
                "{name}[{j}, {j}] = {v:e} is outside (0, {most:e}], where A >= {a_min:e} I puts it"
            )
        });
    }
    for j in 0..r {
        let col = &tri[j * (j + 1) / 2..j * (j + 1) / 2 + j];
        for (i, &a) in col.iter().enumerate() {
            // |a_ij| <= sqrt(a_ii) sqrt(a_jj) (no product to overflow)
            let cap = diag(i).sqrt() * diag(j).sqrt();
            ensure(within(a.abs(), cap), || {
                format!("{name}[{i}, {j}] = {a:e} exceeds sqrt(a_ii a_jj) = {cap:e} (not positive definite)")
            })?;
        }
    }
    Ok(())
}

/// `b^T A^{-1} b`, computed as `s^2 (b/s)^T A^{-1} (b/s)` with `s = max |b_j|` so that no
/// intermediate overflows; `A^{-1}` packed as in [`inverse_bounds`]. Returns `(q, s)`
/// with `b^T A^{-1} b = q s^2`.
pub fn scaled_quadratic_form(tri: &[f64], r: usize, b: &[f64]) -> (f64, f64) {
    let s = b.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
    if s == 0.0 || !s.is_finite() {
        return (0.0, s);
    }
    let mut q = 0.0;
    for j in 0..r {
        let col = &tri[j * (j + 1) / 2..=j * (j + 1) / 2 + j];
        let bj = b[j] / s;
        for (i, &a) in col[..j].iter().enumerate() {
            q += 2.0 * a * (b[i] / s) * bj;
        }
        q += col[j] * bj * bj;
    }
    (q, s)
}

/// A lower Cholesky factor `L` packed by rows (row `i` holds `i + 1` entries) of
/// `M + lam I` with `M` positive semi-definite and `M_ii = diag(i)`: row `i` has
/// squared norm `diag(i) + lam` (the diagonal of `L L^T`), and its pivot is
/// `L_ii >= sqrt(lam)` (`L_ii^2` is a Schur complement of `M + lam I`, `>= lam`).
pub fn cholesky_rows(
    name: &str,
    chol: &[f64],
    t: usize,
    lam: f64,
    diag: impl Fn(usize) -> f64,
) -> Result<()> {
    let mut start = 0;
    for i in 0..t {
        let row = &chol[start..start + i + 1];
        start += i + 1;
        let want = diag(i) + lam;
        let s = row.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        let norm2 =
            if s > 0.0 { s * s * row.iter().map(|v| (v / s) * (v / s)).sum::<f64>() } else { 0.0 };
        ensure((norm2 - want).abs() <= TOL * want, || {
            format!("{name}: row {i} has squared norm {norm2:e}, the diagonal of the matrix it factors is {want:e}")
        })?;
        // rounding of the Schur complement: a few ulps of the row's norm per entry
        let slack = TOL * lam + 4.0 * (i + 1) as f64 * f64::EPSILON * want;
        let p = row[i];
        ensure(p * p >= lam - slack, || {
            format!("{name}: pivot {i} = {p:e} is below sqrt(lam) = {:e}", lam.sqrt())
        })?;
    }
    Ok(())
}
