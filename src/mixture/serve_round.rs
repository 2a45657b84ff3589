//! One round of a [`super::Mixture`] on a single row (the serving path): the
//! dictionary experts' Cholesky updates run together, column by column in turn
//! ([`crate::learners::NystromAwv::finish_deferred`]), so that the chains of
//! divisions and `hypot`s that each column waits on overlap across experts. Each
//! expert's numbers are those of its own round, bit for bit; every update is made
//! before the call returns.

use super::AnyLearner;
use crate::error::Result;
use crate::learners::NystromAwv;

fn dictionary_experts(experts: &mut [AnyLearner]) -> Vec<&mut NystromAwv> {
    (experts.iter_mut())
        .filter_map(|e| match e {
            AnyLearner::NystromAwv(l) => Some(l),
            _ => None,
        })
        .collect()
}

/// Defers the dictionary experts' factor updates for a block of `rows` rows when
/// it is a single row and two or more would update; whether it did.
pub fn defer(experts: &mut [AnyLearner], rows: usize) -> bool {
    let mut ls = dictionary_experts(experts);
    if rows != 1 || ls.len() < 2 {
        return false;
    }
    ls.iter_mut().for_each(|l| l.defer_updates(true));
    true
}

/// The deferred updates (`deferred`: what [`defer`] returned), then `res`, or the
/// first error of the two.
pub fn finish(experts: &mut [AnyLearner], deferred: bool, res: Result<()>) -> Result<()> {
    if !deferred {
        return res;
    }
    let mut ls = dictionary_experts(experts);
    ls.iter_mut().for_each(|l| l.defer_updates(false));
    res.and(NystromAwv::finish_deferred(&mut ls))
}
