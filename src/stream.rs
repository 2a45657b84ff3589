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

// -- Sample weights (docs/choices.md, "Sample weights") ------------------------------
//
// A weight is a finite number >= 0. A row of weight 0 is predicted (progressive
// predictions) but not learned: the learner, `n_seen` included, is exactly as before
// it. A stream whose weights are all 1 takes the unweighted path above, bit for bit.

/// The largest integer weight of a learner that repeats rows
/// ([`OnlineLearner::repeats_weights`]): each repeat is a round.
pub const MAX_REPEATS: f64 = 1000.0;

/// Checks sample weights: `n` of them, each finite and `>= 0`.
pub fn check_weights(w: &[f64], n: usize) -> Result<()> {
    if w.len() != n {
        return crate::input_err!("X has {n} rows but sample_weight has {} values", w.len());
    }
    if let Some(i) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        if n == 1 {
            return crate::input_err!(
                "the sample weight must be a finite number >= 0, got {}",
                w[i]
            );
        }
        return crate::input_err!("sample_weight[{i}] = {} is not a finite number >= 0", w[i]);
    }
    Ok(())
}

/// Whether weights leave the unweighted path: `None` or all of them 1.
fn unit(w: Option<&[f64]>) -> bool {
    w.is_none_or(|w| w.iter().all(|&v| v == 1.0))
}

/// Validates a weighted block: the rows as [`validate`] (capacity counted over the rows
/// of positive weight), then the weights.
fn validate_weighted<L: OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    w: &[f64],
) -> Result<()> {
    check_weights(w, n)?;
    let mut rounds = w.iter().filter(|&&v| v > 0.0).count();
    if !learner.supports_weights() && learner.repeats_weights() {
        if let Some(v) = w.iter().find(|&&v| v.fract() != 0.0 || v > MAX_REPEATS) {
            return crate::input_err!(
                "this learner learns an integer sample weight w as the row repeated w times: \
                 weights must be whole numbers in [0, {MAX_REPEATS}], got {v}"
            );
        }
        rounds = w.iter().map(|&v| v as usize).sum();
    } else if !learner.supports_weights() {
        if let Some(v) = w.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return crate::input_err!(
                "this learner does not support sample weights other than 0 and 1 (got {v}; \
                 docs/choices.md, \"Sample weights\", lists the learners that do)"
            );
        }
    }
    validate(learner, x, n, d, None)?;
    // The labels and rows as `validate` checks them, capacity for the learned rows only.
    if y.len() != n {
        return crate::input_err!("X has {n} rows but y has {} values", y.len());
    }
    let learned = rounds;
    let mut checked = Ok(());
    for (i, (row, yi)) in x.chunks_exact(d).zip(y).enumerate() {
        checked = checked.and_then(|()| validate_label(*yi, i, n));
        checked = checked
            .and_then(|()| learner.check_row(row, Some(*yi)).map_err(|e| prefix_row(e, i, n)));
        if checked.is_err() {
            break;
        }
    }
    checked?;
    if learned > 0 {
        learner.check_capacity(learned, d)?;
    }
    Ok(())
}

/// One label as [`validate`] checks it (row `i` of `n`).
fn validate_label(y: f64, i: usize, n: usize) -> Result<()> {
    let at = if n == 1 { String::new() } else { format!("[{i}]") };
    if !y.is_finite() {
        return crate::input_err!("y{at} = {y} is not finite");
    }
    if y.abs() > crate::limits::Y_MAX {
        return Err(crate::KsError::Numerical(format!(
            "y{at} = {y:.6e} is too large: its square would overflow double precision (|y| <= {:e})",
            crate::limits::Y_MAX
        )));
    }
    Ok(())
}

/// The weighted rounds over validated rows: weight 0 predicted (when `out`) and not
/// learned, 1 a plain round, others [`OnlineLearner::predict_learn_weighted`]; polls
/// Ctrl-C before each row. `done` counts the rows processed.
fn weighted_rounds<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    rows: crate::learners::Rows<'_>,
    w: &[f64],
    mut out: Option<&mut Vec<f64>>,
    done: &mut usize,
) -> Result<()> {
    for ((row, &yt), &wt) in rows.x.chunks_exact(rows.d).zip(rows.y).zip(w) {
        crate::interrupt::poll()?;
        let p = if wt == 0.0 {
            match out.as_deref_mut() {
                Some(_) => Some(learner.predict(row)?),
                None => None,
            }
        } else if wt == 1.0 {
            match out.as_deref_mut() {
                Some(_) => Some(learner.predict_learn(row, yt)?),
                None => learner.learn(row, yt).map(|()| None)?,
            }
        } else if !learner.supports_weights() && learner.repeats_weights() {
            // An integer weight w: the row learned w times (the first round's prediction).
            let p = learner.predict_learn(row, yt)?;
            for _ in 1..(wt as usize) {
                crate::interrupt::poll()?;
                learner.learn(row, yt)?;
            }
            Some(p)
        } else {
            Some(learner.predict_learn_weighted(row, yt, wt)?)
        };
        if let (Some(o), Some(p)) = (out.as_deref_mut(), p) {
            o.push(p);
        }
        *done += 1;
    }
    Ok(())
}

/// [`progressive_predict_into`] with sample weights `w` (`None`: unweighted).
pub fn progressive_predict_weighted_into<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    w: Option<&[f64]>,
    out: &mut Vec<f64>,
) -> Result<()> {
    if let Some(w) = w {
        check_weights(w, n)?;
    }
    let Some(w) = w.filter(|_| !unit(w)) else {
        return progressive_predict_into(learner, x, n, d, y, out);
    };
    validate_weighted(learner, x, n, d, y, w)?;
    crate::interrupt::start();
    out.reserve(n);
    let rows = crate::learners::Rows { x, d, y };
    weighted_rounds(learner, rows, w, Some(out), &mut 0)
}

/// [`learn_many`] with sample weights `w` (`None`: unweighted); `done` counts the rows
/// processed (those before an interrupt).
pub fn learn_many_weighted<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    w: Option<&[f64]>,
    done: &mut usize,
) -> Result<()> {
    if let Some(w) = w {
        check_weights(w, n)?;
    }
    let Some(w) = w.filter(|_| !unit(w)) else {
        let before = learner.n_seen();
        let res = learn_many(learner, x, n, d, y);
        *done = (learner.n_seen() - before) as usize;
        return res;
    };
    validate_weighted(learner, x, n, d, y, w)?;
    crate::interrupt::start();
    let rows = crate::learners::Rows { x, d, y };
    weighted_rounds(learner, rows, w, None, done)
}

/// [`learn_one`] with sample weight `w`: `w = 1` is [`learn_one`], `w = 0` validates
/// the row and learns nothing.
pub fn learn_one_weighted<L: OnlineLearner + ?Sized>(
    learner: &mut L,
    x: &[f64],
    y: f64,
    w: f64,
) -> Result<()> {
    check_weights(&[w], 1)?;
    if w == 1.0 {
        return learn_one(learner, x, y);
    }
    validate_weighted(learner, x, 1, x.len(), &[y], &[w])?;
    if w == 0.0 {
        return Ok(());
    }
    let rows = crate::learners::Rows { x, d: x.len(), y: std::slice::from_ref(&y) };
    weighted_rounds(learner, rows, &[w], None, &mut 0)
}
