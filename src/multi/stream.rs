//! The multi-output protocol over whole arrays, validated as [`crate::stream`]
//! does (every check before the learner is touched; interrupts at round
//! boundaries). Targets `y` are row-major `n x k`.

use super::MultiOutput;
use crate::error::Result;
use crate::learners::Rows;

/// Validates `n` rows of `x` and, when given, the targets `y` (`n x k`): finite,
/// not too large, and `k` equal to the learner's `K` (or fitting in memory when
/// `K` is not fixed yet).
pub fn validate<L: MultiOutput + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    y: Option<(&[f64], usize)>,
) -> Result<()> {
    let Some((y, k)) = y else {
        return crate::stream::validate(learner, x, n, d, None);
    };
    if k == 0 {
        return crate::input_err!("y has 0 columns: each round needs at least one target");
    }
    if y.len() != n.saturating_mul(k) {
        return crate::input_err!("X has {n} rows but y holds {} values, not {n} x {k}", y.len());
    }
    // The rows and their values, with the checks of a single-output stream on the
    // first column's shape (the targets are checked here).
    crate::stream::validate(learner, x, n, d, None)?;
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return crate::input_err!("y[{}, {}] = {} is not finite", i / k, i % k, y[i]);
    }
    if let Some(i) = y.iter().position(|v| v.abs() > crate::limits::Y_MAX) {
        return Err(crate::KsError::Numerical(format!(
            "y[{}, {}] = {:.6e} is too large: its square would overflow double precision (|y| <= {:e})",
            i / k,
            i % k,
            y[i],
            crate::limits::Y_MAX
        )));
    }
    match learner.n_outputs() {
        Some(k0) if k0 != k => {
            return crate::input_err!(
                "y has {k} values per round but this learner has {k0} outputs (fixed by its \
                 first round; add_outputs adds more)"
            )
        }
        Some(_) => {}
        None => learner.check_outputs(k, d)?,
    }
    learner.check_capacity(n, d)
}

/// Progressive predictions of `k` outputs (`n x k` pushed onto `out`; partial
/// after an interrupt).
pub fn progressive_predict_into<L: MultiOutput + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    k: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    validate(learner, x, n, d, Some((y, k)))?;
    crate::interrupt::start();
    out.reserve(y.len());
    learner.predict_learn_many_multi(Rows { x, d, y }, out)
}

/// Learns every row in order (a loop of [`learn_one`]).
pub fn learn_many<L: MultiOutput + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    k: usize,
) -> Result<()> {
    let mut out = Vec::new();
    progressive_predict_into(learner, x, n, d, y, k, &mut out)
}

/// The predictions of every row as the next round (`n x K`, pure).
pub fn predict_many_into<L: MultiOutput + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    validate(learner, x, n, d, None)?;
    crate::interrupt::start();
    learner.predict_rows_multi(x, d, out)
}

/// The `K` predictions for one input, keeping the work for a following round.
pub fn predict_one_keep<L: MultiOutput + ?Sized>(learner: &mut L, x: &[f64]) -> Result<Vec<f64>> {
    validate(learner, x, 1, x.len(), None)?;
    let mut out = Vec::new();
    learner.predict_keep_multi(x, &mut out)?;
    Ok(out)
}

/// One round of `K = y.len()` targets (validated).
pub fn learn_one<L: MultiOutput + ?Sized>(learner: &mut L, x: &[f64], y: &[f64]) -> Result<()> {
    validate(learner, x, 1, x.len(), Some((y, y.len())))?;
    learner.predict_learn_multi(x, y, &mut Vec::new())
}
