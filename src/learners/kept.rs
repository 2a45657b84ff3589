//! The serving path: `predict_one(x)` now, `learn_one(x, y)` when the label
//! arrives. [`OnlineLearner::predict_keep`] keeps what the prediction computed
//! (features, `A^{-1} phi`, kernel rows, ...) and a following round on the same
//! `x`, with no round in between, finishes from it instead of starting again.
//!
//! [`Kept`] records which input and which round the kept work belongs to: the
//! round is the learner's `n_seen` (every round advances it, so a kept
//! prediction can never serve a later round), the input is compared bit for
//! bit (the kept numbers are then exactly those the round would compute).
//! The kept work is not part of the state: it is not serialised, a copy starts
//! without it, and it never changes a result.

/// Which `(x, round)` a learner's kept prediction belongs to (nothing: `None`).
#[derive(Debug, Default)]
pub struct Kept {
    x: Vec<f64>,
    round: Option<u64>,
}

/// A copy starts without kept work (the kept buffers are scratch, not state).
impl Clone for Kept {
    fn clone(&self) -> Self {
        Kept::default()
    }
}

impl Kept {
    /// Records that the work kept now belongs to `x` at round `round`.
    pub fn set(&mut self, x: &[f64], round: u64) {
        self.x.clear();
        self.x.extend_from_slice(x);
        self.round = Some(round);
    }

    /// Whether the kept work belongs to `x` at round `round` (the same bits).
    pub fn matches(&self, x: &[f64], round: u64) -> bool {
        self.round == Some(round)
            && self.x.len() == x.len()
            && self.x.iter().zip(x).all(|(a, b)| a.to_bits() == b.to_bits())
    }

    /// [`Self::matches`], consumed either way: a kept prediction serves at most one round.
    pub fn take(&mut self, x: &[f64], round: u64) -> bool {
        let hit = self.matches(x, round);
        self.round = None;
        hit
    }

    /// Forgets the kept work.
    pub fn clear(&mut self) {
        self.round = None;
    }
}
