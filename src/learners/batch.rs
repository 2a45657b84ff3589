//! Pieces of [`super::online_learner::OnlineLearner`] implementations that several learners share.

use crate::error::Result;

/// A block of rounds: row-major `x` (rows of `d` inputs) and their targets `y`
/// (one a row; `K` a row, row-major, for [`crate::multi::MultiOutput`]).
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    pub x: &'a [f64],
    pub d: usize,
    pub y: &'a [f64],
}

/// The default [`super::online_learner::OnlineLearner::run_rows`]: one
/// [`super::online_learner::OnlineLearner::predict_learn`] a row with its prediction pushed onto
/// `out`, or one [`super::online_learner::OnlineLearner::learn`] a row without `out`; polls Ctrl-C
/// before each round.
pub(crate) fn each_round<L: super::online_learner::OnlineLearner + ?Sized>(
    learner: &mut L,
    rows: Rows<'_>,
    mut out: Option<&mut Vec<f64>>,
) -> Result<()> {
    for (row, &yt) in rows.x.chunks_exact(rows.d).zip(rows.y) {
        crate::interrupt::poll()?;
        match out.as_deref_mut() {
            Some(o) => o.push(learner.predict_learn(row, yt)?),
            None => learner.learn(row, yt)?,
        }
    }
    Ok(())
}

/// `out`, or else `scratch` with room for `n` predictions that nobody reads (the
/// learning-only path of a learner that learns by predicting).
pub(crate) fn or_scratch<'a>(
    out: Option<&'a mut Vec<f64>>,
    scratch: &'a mut Vec<f64>,
    n: usize,
) -> &'a mut Vec<f64> {
    out.unwrap_or_else(|| {
        scratch.reserve(n);
        scratch
    })
}

/// Predictions for every row of row-major `x`, one [`super::online_learner::OnlineLearner::predict`]
/// each, pushed onto `out`; polls Ctrl-C (the default `predict_rows`, and the
/// unbatched path of the learners that batch it).
pub(crate) fn predict_each<L: super::online_learner::OnlineLearner + ?Sized>(
    learner: &L,
    x: &[f64],
    d: usize,
    out: &mut Vec<f64>,
) -> Result<()> {
    for row in x.chunks_exact(d) {
        crate::interrupt::poll()?;
        out.push(learner.predict(row)?);
    }
    Ok(())
}

/// A learner's lazily built state, which its caller has just built: an internal error
/// naming `learner` if it is missing.
pub(crate) fn built<'a, S>(state: &'a mut Option<S>, learner: &str) -> Result<&'a mut S> {
    state.as_mut().ok_or_else(|| crate::KsError::Internal(format!("{learner} state missing")))
}

/// Resizes a scratch buffer to `n` zeros when its length is not `n` (no work otherwise).
pub(crate) fn sized(buf: &mut Vec<f64>, n: usize) {
    if buf.len() != n {
        *buf = vec![0.0; n];
    }
}

/// Public accessors that return a copy of the field of the same name (inside an
/// `impl`): `copy_getters!(lam: f64, ridge: bool)`.
macro_rules! copy_getters {
    ($($(#[$m:meta])* $field:ident: $ty:ty),+ $(,)?) => {
        $(
            $(#[$m])*
            pub fn $field(&self) -> $ty {
                self.$field
            }
        )+
    };
}
pub(crate) use copy_getters;
