//! Tensor-product eigenfunctions in d dimensions (Zhang and Simon, sec. 5 and
//! Appendix A eq. (32)): `psi*_J(x) = prod_l psi_{j_l}(x_l)`,
//! `lambda*_J = prod_l lambda_{j_l}`. The paper gives no order; we switch multi-indices on by
//! decreasing product eigenvalue, ties broken by the lexicographic order of `J` (docs/choices.md,
//! "Multivariate order"). The comparison uses exact integer keys ([`Basis1D::order_key`]).
//!
//! Enumeration is best-first: the frontier holds the successors `J + e_l` of the indices
//! already emitted. Since increasing one coordinate never increases the eigenvalue and makes
//! the index lexicographically larger, every index is emitted after all its predecessors, so
//! the frontier never re-admits an emitted index.

use super::{Basis1D, KeyCombine};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TensorOrder {
    d: usize,
    basis: Basis1D,
    /// Candidates `(key, J)` (1-based indices), smallest key first, then lexicographic.
    frontier: BTreeSet<(u128, Vec<u32>)>,
    emitted: usize,
}

impl TensorOrder {
    pub fn new(d: usize, basis: Basis1D) -> Self {
        let mut t = TensorOrder { d, basis, frontier: BTreeSet::new(), emitted: 0 };
        let first = vec![1u32; d];
        let k = t.key(&first);
        t.frontier.insert((k, first));
        t
    }

    /// Ordering key of a multi-index (larger key = smaller product eigenvalue).
    pub fn key(&self, idx: &[u32]) -> u128 {
        let mut acc: Option<u128> = None;
        for &j in idx {
            let (k, comb) = self.basis.order_key(j as usize);
            acc = Some(match (acc, comb) {
                (None, _) => k,
                (Some(a), KeyCombine::Product) => a.saturating_mul(k),
                (Some(a), KeyCombine::Sum) => a.saturating_add(k),
            });
        }
        acc.unwrap_or(0)
    }

    /// The next multi-index in the order.
    pub fn next_index(&mut self) -> Vec<u32> {
        let (_, idx) = match self.frontier.pop_first() {
            Some(v) => v,
            None => (0, vec![1; self.d]), // unreachable: the frontier never empties
        };
        for l in 0..self.d {
            let mut s = idx.clone();
            s[l] += 1;
            let k = self.key(&s);
            self.frontier.insert((k, s));
        }
        self.emitted += 1;
        idx
    }

    /// Product eigenvalue of a multi-index.
    pub fn eigenvalue(&self, idx: &[u32]) -> f64 {
        idx.iter().map(|&j| self.basis.eigenvalue(j as usize)).product()
    }
}
