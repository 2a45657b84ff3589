//! The online protocol over whole arrays, for any [`OnlineLearner`].
//!
//! Every entry point validates all of its input first (shape, finiteness, the
//! dimension fixed by earlier calls, the learner's own row and capacity checks)
//! and only then touches the learner, so a call that fails leaves the learner
//! exactly as it was. Arrays are row-major `(n, d)` slices.
//!
//! The loops honour interrupts ([`crate::interrupt`]): every few milliseconds they
//! ask whether Ctrl-C was pressed and, if so, stop at a round boundary with
//! [`crate::KsError::Interrupted`]; the learner is then exactly as after the last
//! completed round, and the `_into` variants have pushed the predictions of the
//! completed rounds.

use crate::error::Result;
use crate::learners::OnlineLearner;

/// Validates a row-major block `x` of `n` rows of length `d` (and labels `y` if given).
pub fn validate<L: OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    y: Option<&[f64]>,
) -> Result<()> {
    if n == 0 {
        return crate::input_err!("empty input: X has no rows");
    }
    if d == 0 {
        return crate::input_err!("X has 0 columns: each row needs at least one feature");
    }
    if x.len() != n * d {
        return crate::input_err!("X holds {} values, expected {n} rows x {d} columns", x.len());
    }
    if let Some(y) = y {
        if y.len() != n {
            return crate::input_err!("X has {n} rows but y has {} values", y.len());
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            if n == 1 {
                return crate::input_err!("y = {} is not finite", y[i]);
            }
            return crate::input_err!("y[{i}] = {} is not finite", y[i]);
        }
        // The losses square y (and sum squares over the stream): beyond Y_MAX the
        // result is not representable, so refuse before any state change.
        if let Some(i) = y.iter().position(|v| v.abs() > crate::limits::Y_MAX) {
            return Err(crate::KsError::Numerical(format!(
                "y[{i}] = {:.6e} is too large: its square would overflow double precision (|y| <= {:e})",
                y[i],
                crate::limits::Y_MAX
            )));
        }
    }
    match learner.input_dim() {
        Some(d0) if d0 != d => {
            return crate::input_err!(
                "input has {d} features but this learner was fed {d0}-dimensional inputs before"
            )
        }
        None => learner.check_input_dim(d)?,
        _ => {}
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        if n == 1 {
            return crate::input_err!("x[{i}] = {} is not finite", x[i]);
        }
        return crate::input_err!("X[{}, {}] = {} is not finite", i / d, i % d, x[i]);
    }
    for (i, row) in x.chunks_exact(d).enumerate() {
        learner.check_row(row, y.map(|y| y[i])).map_err(|e| prefix_row(e, i, n))?;
    }
    if y.is_some() {
        learner.check_capacity(n, d)?;
    }
    Ok(())
}

fn prefix_row(e: crate::KsError, i: usize, n: usize) -> crate::KsError {
    use crate::KsError::*;
    if n == 1 {
        return e;
    }
    match e {
        Input(m) => Input(format!("row {i}: {m}")),
        Parameter(m) => Parameter(format!("row {i}: {m}")),
        Numerical(m) => Numerical(format!("row {i}: {m}")),
        Internal(m) => Internal(format!("row {i}: {m}")),
        Interrupted(m) => Interrupted(m),
    }
}

/// Progressive (prequential) predictions: the t-th output is the prediction made
/// before `y[t]` is revealed; then the learner learns `(x[t], y[t])`.
pub fn progressive_predict<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    progressive_predict_into(learner, x, n, d, y, &mut out)?;
    Ok(out)
}

/// [`progressive_predict`] pushing onto `out`: after an error (an interrupt) `out`
/// holds the predictions of the rounds that completed.
pub fn progressive_predict_into<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    out: &mut Vec<f64>,
) -> Result<()> {
    validate(learner, x, n, d, Some(y))?;
    crate::interrupt::start();
    out.reserve(n);
    learner.predict_learn_many(x, d, y, out)
}

/// Learns every row in order (equals a loop of single-row learning). After an
/// interrupt, the learner has learned the rows before the one it stopped at.
pub fn learn_many<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
) -> Result<()> {
    validate(learner, x, n, d, Some(y))?;
    crate::interrupt::start();
    learner.learn_batch(x, d, y)
}

/// Predictions for every row, each as if it were the next round (state unchanged).
pub fn predict_many<L: OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    predict_many_into(learner, x, n, d, &mut out)?;
    Ok(out)
}

/// [`predict_many`] pushing onto `out` (partial after an interrupt).
pub fn predict_many_into<L: OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    validate(learner, x, n, d, None)?;
    crate::interrupt::start();
    out.reserve(n);
    learner.predict_rows(x, d, out)
}

/// [`predict_many_into`] for the serving path: a single row is predicted by
/// [`OnlineLearner::predict_keep`] (bit for bit [`OnlineLearner::predict`]; a
/// learner that batches its predictions may differ from its batch in the last bits),
/// which keeps its work for a following round on that row.
pub fn predict_many_keep_into<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    if n != 1 {
        return predict_many_into(learner, x, n, d, out);
    }
    validate(learner, x, n, d, None)?;
    out.push(learner.predict_keep(x)?);
    Ok(())
}

/// One prediction (validated).
pub fn predict_one<L: OnlineLearner + ?Sized>(learner: &L, x: &[f64]) -> Result<f64> {
    validate(learner, x, 1, x.len(), None)?;
    learner.predict(x)
}

/// One prediction (validated) that keeps its work for a following
/// [`learn_one`] on the same `x` ([`OnlineLearner::predict_keep`]).
pub fn predict_one_keep<L: OnlineLearner + ?Sized>(learner: &mut L, x: &[f64]) -> Result<f64> {
    validate(learner, x, 1, x.len(), None)?;
    learner.predict_keep(x)
}

/// One round of learning (validated).
pub fn learn_one<L: OnlineLearner + ?Sized>(learner: &mut L, x: &[f64], y: f64) -> Result<()> {
    validate(learner, x, 1, x.len(), Some(&[y]))?;
    learner.learn(x, y)
}
