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

/// [`progressive_predict_into`] with sample weights `w` (`None` or all 1: unweighted;
/// docs/choices.md, "Sample weights"): weight 0 predicted and not learned, others the
/// learner's weighted round, or, for a learner that repeats rows
/// ([`crate::learners::OnlineLearner::repeats_weights`]), the row `w` times.
#[allow(clippy::too_many_arguments)]
pub fn progressive_predict_weighted_into<L: MultiOutput + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    k: usize,
    w: Option<&[f64]>,
    out: &mut Vec<f64>,
) -> Result<()> {
    if let Some(w) = w {
        crate::stream::check_weights(w, n)?;
    }
    let Some(w) = w.filter(|w| w.iter().any(|&v| v != 1.0)) else {
        return progressive_predict_into(learner, x, n, d, y, k, out);
    };
    let repeats = !learner.supports_weights_multi() && learner.repeats_weights();
    let max = crate::stream::MAX_REPEATS;
    if repeats {
        if let Some(v) = w.iter().find(|&&v| v.fract() != 0.0 || v > max) {
            return crate::input_err!(
                "this learner learns an integer sample weight w as the row repeated w times: \
                 weights must be whole numbers in [0, {max}], got {v}"
            );
        }
    } else if !learner.supports_weights_multi() {
        if let Some(v) = w.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return crate::input_err!(
                "this learner does not support sample weights other than 0 and 1 with \
                 several outputs (got {v})"
            );
        }
    }
    validate(learner, x, n, d, Some((y, k)))?;
    crate::interrupt::start();
    out.reserve(y.len());
    let mut scratch = Vec::new();
    for ((row, yt), &wt) in x.chunks_exact(d).zip(y.chunks_exact(k)).zip(w) {
        crate::interrupt::poll()?;
        if wt == 0.0 {
            // (before the first round `K` is unknown: the one prediction for every output)
            let s = out.len();
            learner.predict_multi(row, out)?;
            if out.len() == s + 1 && k > 1 {
                out.resize(s + k, out[s]);
            }
        } else if wt == 1.0 {
            learner.predict_learn_multi(row, yt, out)?;
        } else if repeats {
            learner.predict_learn_multi(row, yt, out)?;
            for _ in 1..(wt as usize) {
                crate::interrupt::poll()?;
                scratch.clear();
                learner.predict_learn_multi(row, yt, &mut scratch)?;
            }
        } else {
            learner.predict_learn_weighted_multi(row, yt, wt, out)?;
        }
    }
    Ok(())
}

fn no_std_multi() -> crate::KsError {
    crate::KsError::Parameter(
        "this learner has no predictive standard deviation per output (docs/uncertainty.md, \
         \"Several outputs\", says which learners have one)"
            .into(),
    )
}

/// `values` (one value while `K` was unknown) made `k` long.
fn to_outputs(values: &mut Vec<f64>, start: usize, k: usize) {
    if values.len() == start + 1 && k > 1 {
        values.resize(start + k, values[start]);
    }
}

/// The `K` predictions and predictive standard deviations of every row as the next
/// round (pure), `n x K` each pushed onto `means` and `stds`. Validated first.
pub fn predict_std_many_into<L: MultiOutput + ?Sized>(
    learner: &L,
    x: &[f64],
    n: usize,
    d: usize,
    means: &mut Vec<f64>,
    stds: &mut Vec<f64>,
) -> Result<()> {
    validate(learner, x, n, d, None)?;
    crate::interrupt::start();
    for row in x.chunks_exact(d) {
        crate::interrupt::poll()?;
        if !learner.predict_std_multi(row, means, stds)? {
            return Err(no_std_multi());
        }
    }
    Ok(())
}

/// The online protocol of `k` outputs with standard deviations: for each row, the `K`
/// predictions, their predictive standard deviations and the `K` noise levels before
/// the round's targets are seen (row-major `n x k` each in `out`), then the round is
/// learned. Validated first (a refused call leaves the learner unchanged); stops at a
/// round boundary on Ctrl-C with the completed rounds pushed.
pub fn progressive_predict_std_into<L: MultiOutput + ?Sized>(
    learner: &mut L,
    x: &[f64],
    n: usize,
    d: usize,
    y: &[f64],
    k: usize,
    out: &mut crate::uncertainty::StdRounds,
) -> Result<()> {
    validate(learner, x, n, d, Some((y, k)))?;
    if !learner.noise_stds_multi(&mut Vec::new()) {
        return Err(no_std_multi());
    }
    crate::interrupt::start();
    let (mut means, mut stds, mut noises) = (Vec::new(), Vec::new(), Vec::new());
    for (row, yt) in x.chunks_exact(d).zip(y.chunks_exact(k)) {
        crate::interrupt::poll()?;
        means.clear();
        stds.clear();
        noises.clear();
        if !learner.predict_std_multi(row, &mut means, &mut stds)? {
            return Err(no_std_multi());
        }
        learner.noise_stds_multi(&mut noises);
        to_outputs(&mut stds, 0, k);
        to_outputs(&mut noises, 0, k);
        learner.predict_learn_multi(row, yt, &mut out.preds)?;
        out.stds.extend_from_slice(&stds);
        out.noises.extend_from_slice(&noises);
    }
    Ok(())
}
