//! Taylor basis of the Gaussian kernel: PKAWV paper sec. 3.1 (eq. (6)) and Lemma 11;
//! the multi-index basis, not the paper code's Kronecker powers (docs/choices.md,
//! "Taylor features").
//!
//! For a multi-index `k` with `|k| <= M`,
//! `g_k(x) = exp(-||x||^2 / (2 sigma^2)) prod_i (x_i / sigma)^{k_i} / sqrt(k_i!)`.
//! These functions are orthonormal in the Gaussian RKHS (Lemma 11), so the
//! features need no whitening, and
//! `sum_{|k|<=M} g_k(x) g_k(x') = exp(-(|x|^2+|x'|^2)/(2 sigma^2)) sum_{j<=M} (x.x'/sigma^2)^j / j!`.
//!
//! The `r = C(M + d, d)` multi-indices are enumerated in graded order. Each
//! `k != 0` records its parent `k - e_i`, `i` the first coordinate with
//! `k_i > 0`, so that `mono[k] = mono[parent] * (x_i / sigma) / sqrt(k_i)`:
//! O(r) per point, no factorials, no Kronecker powers.

use super::FeatureMap;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Largest number of features we agree to build: the AWV state is `r (r+1) / 2`
/// doubles, and 40,000 features already need 6.4 GB.
pub const MAX_TAYLOR_FEATURES: usize = 40_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaylorGaussian {
    d: usize,
    degree: usize,
    sigma: f64,
    /// For feature `k >= 1`: index of its parent feature.
    parent: Vec<u32>,
    /// For feature `k >= 1`: the coordinate `i` multiplied in.
    coord: Vec<u32>,
    /// For feature `k >= 1`: `1 / sqrt(k_i)` (the new exponent of coordinate `i`).
    scale: Vec<f64>,
}

/// `C(M + d, d)`, or `None` if it overflows `usize`.
pub fn taylor_feature_count(d: usize, degree: usize) -> Option<usize> {
    // C(M+d, M) = C(M+d, k) with k = min(M, d), = prod_{j=1..k} (n - k + j) / j with
    // n = M + d, exact at every step; at most min(M, d) steps (a huge degree on a
    // narrow input must not loop M times).
    let (k, rest) = (degree.min(d) as u128, degree.max(d) as u128);
    let mut c: u128 = 1;
    for j in 1..=k {
        c = c.checked_mul(rest + j)? / j;
        if c > usize::MAX as u128 {
            return None;
        }
    }
    Some(c as usize)
}

impl TaylorGaussian {
    pub fn new(d: usize, degree: usize, sigma: f64) -> Result<Self> {
        let sigma = crate::error::invertible("sigma", sigma)?;
        if d == 0 {
            return crate::input_err!("the input dimension d must be at least 1");
        }
        let r = match taylor_feature_count(d, degree) {
            Some(r) if r <= MAX_TAYLOR_FEATURES => r,
            other => {
                let shown = other.map_or("more than 2^64".to_string(), |r| r.to_string());
                return crate::param_err!(
                    "degree={degree} with input dimension d={d} gives C(M+d, d) = {shown} Taylor features; \
                     the AWV state needs r(r+1)/2 doubles, which does not fit in memory \
                     (at most {MAX_TAYLOR_FEATURES} features are allowed): lower the degree"
                );
            }
        };
        // Graded enumeration: degree-j multi-indices are all k' + e_i over degree-(j-1)
        // parents k' and coordinates i <= first nonzero coordinate of k' (so every
        // multi-index is produced exactly once, with i its first nonzero coordinate).
        let mut parent = Vec::with_capacity(r);
        let mut coord = Vec::with_capacity(r);
        let mut scale = Vec::with_capacity(r);
        let mut first_nz: Vec<usize> = Vec::with_capacity(r); // first nonzero coordinate (d for k = 0)
        let mut exps: Vec<Vec<u16>> = Vec::with_capacity(r);
        parent.push(0);
        coord.push(0);
        scale.push(1.0);
        first_nz.push(d);
        exps.push(vec![0; d]);
        let mut level_start = 0usize;
        for _j in 1..=degree {
            let level_end = exps.len();
            for p in level_start..level_end {
                for i in 0..first_nz[p].min(d) + usize::from(first_nz[p] < d) {
                    let mut e = exps[p].clone();
                    e[i] += 1;
                    parent.push(p as u32);
                    coord.push(i as u32);
                    scale.push(1.0 / (e[i] as f64).sqrt());
                    first_nz.push(i);
                    exps.push(e);
                }
            }
            level_start = level_end;
        }
        debug_assert_eq!(exps.len(), r);
        Ok(TaylorGaussian { d, degree, sigma, parent, coord, scale })
    }

    /// The multi-index `k` of each feature, in order (from the parents).
    pub fn exponents(&self) -> Vec<Vec<u16>> {
        let mut exps: Vec<Vec<u16>> = Vec::with_capacity(self.parent.len());
        exps.push(vec![0; self.d]);
        for k in 1..self.parent.len() {
            let mut e = exps[self.parent[k] as usize].clone();
            e[self.coord[k] as usize] += 1;
            exps.push(e);
        }
        exps
    }

    pub fn degree(&self) -> usize {
        self.degree
    }
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
}

impl FeatureMap for TaylorGaussian {
    fn input_dim(&self) -> usize {
        self.d
    }
    fn dim(&self) -> usize {
        self.parent.len()
    }
    fn map_into(&self, x: &[f64], out: &mut [f64]) {
        let inv_sigma = 1.0 / self.sigma;
        // ||x / sigma||^2, scaled before squaring: x_i^2 underflows for a tiny sigma
        // where (x_i / sigma)^2 does not.
        let mut sq = 0.0;
        for &xi in x {
            let u = xi * inv_sigma;
            sq += u * u;
        }
        // exp(-||x||^2 / (2 sigma^2)) applied to the constant monomial, hence to all.
        out[0] = (-sq * 0.5).exp();
        for k in 1..out.len() {
            let p = self.parent[k] as usize;
            let i = self.coord[k] as usize;
            out[k] = out[p] * (x[i] * inv_sigma) * self.scale[k];
        }
    }
}

impl crate::state::ValidState for TaylorGaussian {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        ensure(self.d >= 1, || "the input dimension is 0".into())?;
        crate::error::invertible("sigma", self.sigma)?;
        let r = self.parent.len();
        ensure(
            taylor_feature_count(self.d, self.degree) == Some(r) && r <= MAX_TAYLOR_FEATURES,
            || format!("{r} Taylor features for d = {}, degree {}", self.d, self.degree),
        )?;
        len_is("coordinates", self.coord.len(), r)?;
        len_is("scales", self.scale.len(), r)?;
        for k in 1..r {
            ensure((self.parent[k] as usize) < k && (self.coord[k] as usize) < self.d, || {
                format!("Taylor feature {k} has a bad parent or coordinate")
            })?;
        }
        finite("scales", &self.scale)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("sigma", &self.sigma, &fresh.sigma)?;
        crate::state::same("degree", &self.degree, &fresh.degree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_count_is_symmetric_and_fast_for_huge_degrees() {
        assert_eq!(taylor_feature_count(3, 2), Some(10));
        assert_eq!(taylor_feature_count(2, 3), Some(10));
        assert_eq!(taylor_feature_count(1, 1 << 40), Some((1 << 40) + 1));
        assert_eq!(taylor_feature_count(2, 1 << 62), None);
        assert_eq!(taylor_feature_count(10, 0), Some(1));
    }

    #[test]
    fn counts() {
        assert_eq!(taylor_feature_count(8, 2), Some(45));
        assert_eq!(taylor_feature_count(18, 2), Some(190));
        assert_eq!(taylor_feature_count(5, 4), Some(126));
        for (d, m) in [(8, 2), (5, 3), (3, 6), (1, 4)] {
            assert_eq!(
                TaylorGaussian::new(d, m, 1.0).unwrap().dim(),
                taylor_feature_count(d, m).unwrap()
            );
        }
    }
}
