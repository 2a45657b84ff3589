//! Single rounds of several learners with their factor updates together (a
//! mixture's dictionary experts in one serving round): with [`NystromAwv::defer_updates`]
//! a single round stops before step 5's Cholesky update (after everything else:
//! `q`, the caches, the noise level and the round count do not read the factor),
//! and [`NystromAwv::finish_deferred`] then updates all the factors column by column
//! in turn ([`crate::linalg::cholesky::many`]: the same operations, so the same
//! bits) and makes the round's health check. Nothing stays deferred between calls:
//! the caller finishes in the call that deferred, and a round that finds an update
//! still due applies it first.

use super::{NystromAwv, Scratch};
use crate::error::Result;
use crate::linalg::cholesky::{many, ColCholesky};

impl NystromAwv {
    /// Whether single rounds leave their factor update to [`Self::finish_deferred`].
    pub fn defer_updates(&mut self, on: bool) {
        self.scratch.defer = on;
    }

    /// The factor updates due on `ls` (together), then each round's health check
    /// (refactorised from the cache if a pivot is bad). Every learner is finished;
    /// the first error is returned.
    pub fn finish_deferred(ls: &mut [&mut NystromAwv]) -> Result<()> {
        let mut due: Vec<&mut NystromAwv> = ls.iter_mut().map(|l| &mut **l).collect();
        due.retain(|l| l.scratch.due);
        let (mut chols, mut xs): (Vec<&mut ColCholesky>, Vec<&mut [f64]>) =
            due.iter_mut().map(|l| (&mut l.chol, &mut l.scratch.u[..])).unzip();
        many::rank_one_update(&mut chols, &mut xs);
        let mut res = Ok(());
        for l in due {
            l.scratch.due = false;
            if !l.chol.is_healthy() {
                let r = l.refactorize(false);
                res = res.and(r);
            }
        }
        res
    }

    /// Applies an update still due (the end of the previous round) before a round.
    pub(super) fn finish_due(&mut self, sc: &mut Scratch) -> Result<()> {
        if !sc.due {
            return Ok(());
        }
        sc.due = false;
        self.chol.rank_one_update(&mut sc.u);
        if !self.chol.is_healthy() {
            self.refactorize(false)?;
        }
        Ok(())
    }
}
