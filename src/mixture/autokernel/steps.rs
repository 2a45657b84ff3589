//! Steps [`AutoKernel`] takes the same way with one output and with `K`: a round
//! added to the warm-up, and the restart detector's periodic check.

use super::AutoKernel;
use crate::error::Result;
use crate::mixture::restart::{Restart, CHECK};

impl AutoKernel {
    /// Runs `f`, rows through this learner with their predictions pushed onto `out`.
    /// A learner still in its warm-up learns rows before the fit that ends it, which
    /// can fail: on an error other than an interrupt (which reports the rounds it
    /// completed), the learner and `out` are put back as they were, so a failed call
    /// changes nothing. The copy is of the warm-up rows only (no mixture yet).
    pub(super) fn unchanged_on_error(
        &mut self,
        out: &mut Vec<f64>,
        f: impl FnOnce(&mut Self, &mut Vec<f64>) -> Result<()>,
    ) -> Result<()> {
        let before = self.fitted.is_none().then(|| self.clone());
        let start = out.len();
        let res = f(self, out);
        if let (Err(e), Some(b)) = (&res, before) {
            if !matches!(e, crate::KsError::Interrupted(_)) {
                *self = b;
                out.truncate(start);
            }
        }
        res
    }

    /// Adds the round `(x, y)` (`y` holds its targets) to the warm-up; the round
    /// that completes it (`full`) fits the mixture on the warm-up rows. Unchanged on error.
    pub(super) fn warm_round(&mut self, x: &[f64], y: &[f64], full: bool) -> Result<()> {
        let d = x.len();
        if full {
            let mut wx = self.warm_x.clone();
            wx.extend_from_slice(x);
            let mut wy = self.warm_y.clone();
            wy.extend_from_slice(y);
            let f = self.fit(&wx, &wy, d)?;
            self.fitted = Some(f);
            self.warm_x = wx;
            self.warm_y = wy;
        } else {
            self.warm_x.extend_from_slice(x);
            self.warm_y.extend_from_slice(y);
        }
        self.d = Some(d);
        self.n_seen += 1;
        Ok(())
    }

    /// Every `CHECK` rounds, asks the detector whether the successor replaces this
    /// learner, and if so takes its warm-up, scale and experts.
    pub(super) fn check_restart(&mut self, r: &mut Restart) -> Result<()> {
        self.check_restart_at(r, self.n_seen).map(|_| ())
    }

    /// [`Self::check_restart`] after global round `at` (the learner may have run
    /// further: [`Restart::quiet_rows`]); whether the successor replaced the learner.
    pub(super) fn check_restart_at(&mut self, r: &mut Restart, at: u64) -> Result<bool> {
        if at.is_multiple_of(CHECK) {
            let cfg = self.successor_config();
            let fitted = self.fitted.is_some();
            if let Some(s) = r.check(fitted, self.cfg.warmup, || AutoKernel::with_config(cfg))? {
                // the successor becomes the learner (its warm-up, scale, experts)
                self.warm_x = s.warm_x;
                self.warm_y = s.warm_y;
                self.fitted = s.fitted;
                self.kept = Default::default();
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A chunk of rows through the learner (`learner`) and then its successor (`run`, its
/// predictions into `ps`): whether there is a successor; on an error of either, the
/// successor is dropped and the error returned. With a successor the chunk runs
/// without stopping for Ctrl-C (at most [`CHECK`] rounds): an interrupt between the
/// learner's rows and the successor's would leave them apart; the caller polls after it.
pub(super) fn successor_chunk(
    r: &mut Restart,
    learner: impl FnOnce() -> Result<()>,
    ps: &mut Vec<f64>,
    run: impl FnOnce(&mut AutoKernel, &mut Vec<f64>) -> Result<()>,
) -> Result<bool> {
    let whole = r.successor().is_some();
    let both = || {
        learner().and_then(|()| match r.successor_mut() {
            Some(s) => {
                ps.clear();
                run(s, ps).map(|()| true)
            }
            None => Ok(false),
        })
    };
    let res = if whole { crate::interrupt::uninterrupted(both) } else { both() };
    if res.is_err() {
        r.drop_successor();
    }
    res
}
