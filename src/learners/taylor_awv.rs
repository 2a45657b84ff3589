//! TaylorAWV: PKAWV on the degree-M Taylor basis of the Gaussian kernel.
//! PKAWV paper (Jezequel, Gaillard, Rudi 2019), sec. 3.1, Algorithm 1 and
//! Theorem 4; spec `pkawv.md` sec. 1.3-1.4. The basis is orthonormal in the RKHS
//! (Lemma 11), so PKAWV is exactly linear AWV on `phi(x) = (g_k(x))_{|k|<=M}`.

use super::OnlineLearner;
use crate::awv::{check_block_size, LinearAwv};
use crate::error::{positive, Result};
use crate::features::taylor::{taylor_feature_count, TaylorGaussian, MAX_TAYLOR_FEATURES};
use crate::features::FeatureMap;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaylorAwv {
    sigma: f64,
    degree: usize,
    lam: f64,
    ridge: bool,
    /// Rounds per block of `progressive_predict`/`learn_many` (None: automatic
    /// from `r`; 1: single rounds). A run-time setting, not part of the state.
    #[serde(skip)]
    block_size: Option<usize>,
    /// Built on the first call, when `d` becomes known.
    state: Option<State>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    features: TaylorGaussian,
    engine: LinearAwv,
    #[serde(skip)]
    v: Vec<f64>,
}

impl TaylorAwv {
    pub fn new(sigma: f64, degree: usize, lam: f64, ridge: bool) -> Result<Self> {
        positive("sigma", sigma)?;
        positive("lam", lam)?;
        Ok(TaylorAwv { sigma, degree, lam, ridge, block_size: None, state: None })
    }

    /// Sets the block size (`None`: automatic; `1`: single rounds).
    pub fn with_block_size(mut self, block_size: Option<usize>) -> Result<Self> {
        check_block_size(block_size)?;
        self.block_size = block_size;
        Ok(self)
    }

    /// Sets a checked block size (a run-time setting: see [`Self::with_block_size`]).
    pub(crate) fn set_block_size(&mut self, block_size: Option<usize>) {
        if check_block_size(block_size).is_ok() {
            self.block_size = block_size;
        }
    }

    /// Full rounds over the rows (blocks of rounds on the AWV engine); the first
    /// round of a fresh learner goes through [`OnlineLearner::predict_learn`],
    /// which builds the state.
    fn run_rows(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        mut out: Option<&mut Vec<f64>>,
    ) -> Result<()> {
        let (mut x, mut y) = (x, y);
        if self.state.is_none() && !y.is_empty() {
            crate::interrupt::poll()?;
            let p = self.predict_learn(&x[..d], y[0])?;
            if let Some(o) = out.as_deref_mut() {
                o.push(p);
            }
            (x, y) = (&x[d..], &y[1..]);
        }
        let Some(st) = self.state.as_mut() else { return Ok(()) };
        let block = st.engine.block_size(self.block_size);
        let features = &st.features;
        st.engine.predict_learn_rows(
            x,
            d,
            y,
            block,
            |row, f| {
                features.map_into(row, f);
                check_finite(f)
            },
            out,
        )
    }

    fn state_mut(&mut self, d: usize) -> Result<&mut State> {
        if self.state.is_none() {
            let features = TaylorGaussian::new(d, self.degree, self.sigma)?;
            let engine = LinearAwv::new(features.dim(), self.lam, self.ridge)?;
            let v = vec![0.0; features.dim()];
            self.state = Some(State { features, engine, v });
        }
        let st = self
            .state
            .as_mut()
            .ok_or_else(|| crate::KsError::Internal("TaylorAWV state missing".into()))?;
        if st.v.len() != st.engine.dim() {
            st.v = vec![0.0; st.engine.dim()];
        }
        Ok(st)
    }

    /// The feature vector `phi(x)` (length `C(M+d, d)`).
    pub fn features(&self, x: &[f64]) -> Result<Vec<f64>> {
        match &self.state {
            Some(st) if x.len() != st.features.input_dim() => crate::input_err!(
                "x has {} features, the learner was fed {}-dimensional inputs",
                x.len(),
                st.features.input_dim()
            ),
            Some(st) => Ok(st.features.map(x)),
            None => Ok(TaylorGaussian::new(x.len(), self.degree, self.sigma)?.map(x)),
        }
    }

    /// The AWV engine (None before the first round).
    pub fn engine(&self) -> Option<&LinearAwv> {
        self.state.as_ref().map(|s| &s.engine)
    }
}

/// `v` if every feature is finite; otherwise the input overflowed the monomials.
fn finite_features(v: Vec<f64>) -> Result<Vec<f64>> {
    check_finite(&v).map(|_| v)
}

fn check_finite(v: &[f64]) -> Result<()> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(crate::KsError::Numerical(
            "x is too large for the Taylor features: a monomial (x_i / sigma)^k overflows".into(),
        ))
    }
}

impl OnlineLearner for TaylorAwv {
    fn input_dim(&self) -> Option<usize> {
        self.state.as_ref().map(|s| s.features.input_dim())
    }

    fn check_input_dim(&self, d: usize) -> Result<()> {
        match taylor_feature_count(d, self.degree) {
            Some(r) if r <= MAX_TAYLOR_FEATURES => crate::limits::check_doubles(
                &format!("TaylorAWV with {r} features (the AWV state is r(r+1)/2 doubles)"),
                Some(crate::awv::state_doubles(r)),
            ),
            _ => TaylorGaussian::new(d, self.degree, self.sigma).map(|_| ()),
        }
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        match &self.state {
            Some(st) => Ok(st.engine.predict(&finite_features(st.features.map(x))?)),
            // b_0 = 0: the first prediction is 0 (spec sec. 1.3).
            None => {
                self.check_input_dim(x.len())?;
                Ok(0.0)
            }
        }
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        let fresh = self.state.is_none();
        let st = self.state_mut(x.len())?;
        st.features.map_into(x, &mut st.v);
        if !st.v.iter().all(|v| v.is_finite()) {
            if fresh {
                self.state = None;
            }
            return finite_features(vec![f64::NAN]).map(|_| 0.0);
        }
        Ok(st.engine.predict_learn(&st.v, y))
    }

    fn predict_learn_many(
        &mut self,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        self.run_rows(x, d, y, Some(out))
    }

    fn learn_batch(&mut self, x: &[f64], d: usize, y: &[f64]) -> Result<()> {
        self.run_rows(x, d, y, None)
    }

    /// One matrix-matrix product per chunk of rows ([`LinearAwv::predict_many`]) when
    /// the learner runs blocks; single predictions (bit for bit `predict`) otherwise.
    fn predict_rows(&self, x: &[f64], d: usize, out: &mut Vec<f64>) -> Result<()> {
        let blocked = self.state.as_ref().filter(|st| st.engine.block_size(self.block_size) > 1);
        let Some(st) = blocked else {
            for row in x.chunks_exact(d) {
                crate::interrupt::poll()?;
                out.push(self.predict(row)?);
            }
            return Ok(());
        };
        let r = st.engine.dim();
        const CHUNK: usize = 256;
        let mut feats = vec![0.0; r * CHUNK.min(x.len() / d.max(1))];
        for xc in x.chunks(CHUNK * d) {
            crate::interrupt::poll()?;
            let mut k = 0;
            let mut failed = None;
            for (row, f) in xc.chunks_exact(d).zip(feats.chunks_exact_mut(r)) {
                st.features.map_into(row, f);
                if let Err(e) = check_finite(f) {
                    failed = Some(e);
                    break;
                }
                k += 1;
            }
            st.engine.predict_many(&feats[..k * r], out);
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    fn n_seen(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.engine.n_seen())
    }

    fn dim(&self) -> usize {
        match &self.state {
            Some(s) => s.engine.dim(),
            None => 0,
        }
    }
}

impl crate::state::ValidState for TaylorAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        if let Some(st) = &self.state {
            st.features.validate()?;
            st.engine.validate()?;
            len_is("AWV dimension", st.engine.dim(), st.features.dim())?;
            same("degree", &st.features.degree(), &self.degree)?;
            same("sigma", &st.features.sigma(), &self.sigma)?;
            same("lam", &st.engine.lam(), &self.lam)?;
            same("ridge", &st.engine.ridge(), &self.ridge)?;
        }
        Ok(())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        use crate::state::same;
        same("sigma", &self.sigma, &fresh.sigma)?;
        same("degree", &self.degree, &fresh.degree)?;
        same("lam", &self.lam, &fresh.lam)?;
        same("ridge", &self.ridge, &fresh.ridge)
    }
    fn adopt_settings(&mut self, fresh: &Self) {
        self.block_size = fresh.block_size;
    }
}
