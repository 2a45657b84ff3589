//! Several outputs on one AWV engine: the targets of `K` outputs share the matrix
//! `A = lam I + sum_s v_s v_s^T` (it does not depend on the targets), so the vector
//! `b = sum_s y_s v_s` becomes the `r x K` matrix `B = sum_s v_s y_s^T` (`y_s` in
//! `R^K`) and a round costs one mat-vec `h = A^{-1} v` plus `K` dot products
//! `h . B_j` (PKAWV paper, Algorithm 1, applied to each output; docs/choices.md,
//! "Multi-output AWV").
//!
//! `B` is stored by columns (column `j` is `b[j r..(j + 1) r]`), so one output is
//! exactly the single-output vector `b`. Targets and predictions of a run of `n`
//! rounds are row-major `n x K` (row `t` holds the `K` values of round `t`).
//!
//! A column added later ([`super::LinearAwv::add_outputs`]) starts at zero: an
//! output whose past targets were all 0 has `B_j = sum_s gamma^{t-s} 0 v_s = 0`, so
//! adding it equals having had it from the first round, discounted or not.

use crate::linalg::blas::{axpy, dot};
use crate::linalg::gemm::{gemm, View};

/// The `K` predictions of one round from `h = A^{-1} v` and `delta = v . h`:
/// `h . B_j` (ridge) or `h . B_j / (1 + delta)` (AWV).
pub(super) fn predictions(h: &[f64], b: &[f64], delta: f64, ridge: bool, out: &mut [f64]) {
    if h.is_empty() {
        out.fill(0.0);
        return;
    }
    for (o, bj) in out.iter_mut().zip(b.chunks_exact(h.len())) {
        let hb = dot(h, bj);
        *o = if ridge { hb } else { hb / (1.0 + delta) };
    }
}

/// `B += v y^T` (column `j` gains `f(y_j) v`; `f` the identity for one round).
pub(super) fn add_round(b: &mut [f64], v: &[f64], y: &[f64], f: impl Fn(f64) -> f64) {
    if v.is_empty() {
        return;
    }
    for (bj, &yj) in b.chunks_exact_mut(v.len()).zip(y) {
        axpy(f(yj), v, bj);
    }
}

/// `B += X^T Y` for the `n` rows of row-major `x` (`n x r`) and `y` (`n x K`):
/// one output row by row (the single-output numbers), several as one product.
pub(super) fn add_rounds(b: &mut [f64], x: &[f64], y: &[f64], r: usize, k: usize) {
    if k == 1 || r == 0 {
        for (xi, yi) in x.chunks_exact(r.max(1)).zip(y.chunks_exact(k)) {
            add_round(b, &xi[..r], yi, |yj| yj);
        }
        return;
    }
    let n = y.len() / k;
    let xt = View { rows: r, cols: n, off: 0, rs: 1, cs: r };
    let yv = View { rows: n, cols: k, off: 0, rs: k, cs: 1 };
    gemm(1.0, x, xt, y, yv, 1.0, b, View::col_major(r, k, 0, r));
}

/// `sum_j y_j^2` (the regret diagnostic sums the outputs' squared targets).
pub fn sum_sq(y: &[f64]) -> f64 {
    y.iter().map(|v| v * v).sum()
}

/// Doubles of the target matrix `B` (`r x K`).
pub fn target_doubles(r: usize, k: usize) -> u128 {
    r as u128 * k as u128
}

/// Largest number of outputs a learner accepts (far above any use: the memory
/// ceiling binds first; this keeps the products of sizes small).
pub const MAX_OUTPUTS: usize = 1 << 20;

/// Checks an output count `k` in `[1, MAX_OUTPUTS]`.
pub fn check_outputs(k: usize) -> crate::Result<usize> {
    if k == 0 || k > MAX_OUTPUTS {
        return crate::input_err!("the number of outputs must be in [1, {MAX_OUTPUTS}], got {k}");
    }
    Ok(k)
}

/// The output count after `add_outputs(k)` on `k0` outputs, checked, with the memory
/// `size(total)` gives (what it is for, its doubles) within the input ceiling.
pub(crate) fn check_added(
    k0: usize,
    k: usize,
    size: impl FnOnce(usize) -> (String, Option<u128>),
) -> crate::Result<usize> {
    let total = check_outputs(k0.saturating_add(k))?;
    let (what, doubles) = size(total);
    crate::limits::check_input_doubles(&what, doubles)?;
    Ok(total)
}

/// A row-major matrix of `k0` columns with `k` zero columns appended to each row
/// (`add_outputs` of the learners that keep per-round target rows).
pub(crate) fn widen_columns(v: &[f64], k0: usize, k: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(v.len() / k0.max(1) * (k0 + k));
    for row in v.chunks_exact(k0) {
        out.extend_from_slice(row);
        out.extend(std::iter::repeat_n(0.0, k));
    }
    out
}
