//! Online standardisation of one row: the per-round work of the adapters' `scale=True`
//! (`python/kernelstream/adapters/_scaling.py`, `OnlineStandardizer`), which does
//! blocks of rows with NumPy. A block of one row there is, operation for operation:
//!
//! * the running moments (Welford's, in Chan, Golub and LeVeque's pairwise form with a
//!   block of one row `x`, `n = n0 + 1`): `D = x - mean`, `mean' = mean + D (1 / n)`,
//!   `m2' = m2 + D^2 (n0 / n)`; the first row gives `mean' = x + 0`, `m2' = 0`;
//! * the scaled row with moments `(n, mean, m2)`: `var = m2 / n`, `s = sqrt(var)`;
//!   `z = (x - mean) / s` where `s > 1e-12 |mean|`, else `0` (a constant feature); with
//!   `keep_unit`, `z = x` where `sqrt(mean^2 + var)` is in `[1/4, 4]`; with
//!   `per_dimension`, `z / sqrt(d)`.
//!
//! so the results are those of the block code bit for bit (IEEE operations, `sqrt`
//! correctly rounded in both; tested in `tests/python/test_scaling.py`).

use crate::{input_err, Result};

/// The `keep_unit` range of a feature's running root mean square
/// (`_scaling.UNIT_RANGE`).
pub const UNIT_RANGE: (f64, f64) = (0.25, 4.0);

/// Running moments of a stream of `d`-vectors: `n` rows, their `mean` and `m2` (the
/// sum of squared deviations from the mean).
#[derive(Clone, Debug, PartialEq)]
pub struct Moments {
    pub n: u64,
    pub mean: Vec<f64>,
    pub m2: Vec<f64>,
}

/// How a row is scaled (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Scaling {
    pub keep_unit: bool,
    pub per_dimension: bool,
}

impl Moments {
    /// The moments after one more row `x` (refused, `self` unchanged, if `x` is not
    /// finite or the moments overflow).
    pub fn with_row(&self, x: &[f64]) -> Result<Moments> {
        check_finite(x)?;
        let Some(n) = self.n.checked_add(1) else {
            return input_err!("standardizer state has seen {} rows: no room for one more", self.n);
        };
        let (mean, m2) = if self.n == 0 {
            (x.iter().map(|v| v + 0.0).collect(), vec![0.0; x.len()])
        } else {
            let (inv, w) = (1.0 / n as f64, self.n as f64 / n as f64);
            let mut mean = Vec::with_capacity(x.len());
            let mut m2 = Vec::with_capacity(x.len());
            for ((xi, mi), si) in x.iter().zip(&self.mean).zip(&self.m2) {
                let d = xi - mi;
                mean.push(mi + d * inv);
                m2.push(si + d * d * w);
            }
            (mean, m2)
        };
        if !(mean.iter().chain(&m2).all(|v| v.is_finite())) {
            return input_err!(
                "values too large to standardize (their squares overflow float64); rescale \
                 them first"
            );
        }
        Ok(Moments { n, mean, m2 })
    }

    /// `x` scaled with these moments into `out` (all zeros before any row).
    pub fn scale(&self, x: &[f64], how: Scaling, out: &mut Vec<f64>) -> Result<()> {
        check_finite(x)?;
        out.clear();
        let n = self.n as f64;
        let root_d = (x.len() as f64).sqrt();
        for (i, &xi) in x.iter().enumerate() {
            let (mean, var) = if self.n == 0 { (0.0, 0.0) } else { (self.mean[i], self.m2[i] / n) };
            let s = var.sqrt();
            let mut z = if s > 1e-12 * mean.abs() { (xi - mean) / s } else { 0.0 };
            if how.keep_unit {
                let rms = (mean * mean + var).sqrt();
                if rms >= UNIT_RANGE.0 && rms <= UNIT_RANGE.1 {
                    z = xi;
                }
            }
            out.push(if how.per_dimension { z / root_d } else { z });
        }
        Ok(())
    }

    /// Checks that the fields fit together (`d` entries each, finite, `m2 >= 0`).
    pub fn check(&self, d: usize) -> Result<()> {
        let fits = self.mean.len() == d && self.m2.len() == d;
        let sane = self.mean.iter().all(|v| v.is_finite())
            && self.m2.iter().all(|v| v.is_finite() && *v >= 0.0);
        if self.n > 0 && !(fits && sane) {
            return input_err!(
                "standardizer state does not fit a row of {d} values (mean {}, m2 {} values, \
                 finite, m2 >= 0)",
                self.mean.len(),
                self.m2.len()
            );
        }
        Ok(())
    }
}

fn check_finite(x: &[f64]) -> Result<()> {
    if !x.iter().all(|v| v.is_finite()) {
        return input_err!("the rows to standardize contains NaN or infinite values");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_row_then_welford() {
        let m = Moments { n: 0, mean: vec![], m2: vec![] };
        let m = m.with_row(&[1.0, -0.0]).unwrap();
        assert_eq!((m.n, m.mean.clone(), m.m2.clone()), (1, vec![1.0, 0.0], vec![0.0, 0.0]));
        assert!(m.mean[1].is_sign_positive());
        let m = m.with_row(&[3.0, 2.0]).unwrap();
        assert_eq!((m.mean.clone(), m.m2.clone()), (vec![2.0, 1.0], vec![2.0, 2.0]));
    }

    #[test]
    fn scaled_row_constant_and_unit_features() {
        let m = Moments { n: 2, mean: vec![10.0, 5.0, 1.0], m2: vec![8.0, 0.0, 0.0] };
        let mut out = Vec::new();
        let how = Scaling { keep_unit: true, per_dimension: false };
        m.scale(&[12.0, 7.0, 0.5], how, &mut out).unwrap();
        // feature 0: (12 - 10) / 2; feature 1: constant so far -> 0; feature 2: rms 1 -> kept
        assert_eq!(out, vec![1.0, 0.0, 0.5]);
        let how = Scaling { keep_unit: false, per_dimension: true };
        m.scale(&[12.0, 7.0, 0.5], how, &mut out).unwrap();
        assert_eq!(out, vec![1.0 / 3f64.sqrt(), 0.0, 0.0]);
    }

    #[test]
    fn refusals_leave_nothing() {
        let m = Moments { n: 1, mean: vec![1e200], m2: vec![0.0] };
        assert!(m.with_row(&[-1e200]).is_err());
        assert!(m.with_row(&[f64::NAN]).is_err());
        assert!(m
            .scale(
                &[f64::INFINITY],
                Scaling { keep_unit: false, per_dimension: false },
                &mut Vec::new()
            )
            .is_err());
    }
}
