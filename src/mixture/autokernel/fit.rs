//! The end of the warm-up: scales, the expert grid and the replay of the warm-up rows (steps 1-4 of the module docs).

use super::config::{make_rule, ExpertFeatures, ExpertSpec, FOGD_FREQUENCIES, LINEAR_LAM};
use super::{AutoKernel, Fitted};
use crate::error::Result;
use crate::features::rff::RffVariant;
use crate::kernels::Kernel;
use crate::learners::{
    Fogd, FogdParams, LinearAwvLearner, NystromAwv, RffAwv, RffAwvParams, TaylorAwv,
    TaylorAwvParams,
};
use crate::mixture::scale::{median_distance, median_l1_distance, Scaler};
use crate::mixture::{AnyLearner, Mixture, Traced};
use crate::rng::Rng;

/// `C(m + d, d)`, or `None` above `cap`.
fn taylor_count(d: usize, m: usize, cap: usize) -> Option<usize> {
    let mut c: u128 = 1;
    for i in 1..=m as u128 {
        c = c * (d as u128 + i) / i;
        if c > cap as u128 {
            return None;
        }
    }
    Some(c as usize)
}

/// Largest Taylor degree whose feature count fits `cap` (at most 12).
fn taylor_degree(d: usize, cap: usize) -> Option<usize> {
    (0..=12usize).rev().find(|&m| taylor_count(d, m, cap).is_some())
}

/// The warm-up rows standardised by their own location and spread: the scaler (inputs
/// and first output), the other outputs' location and spread, the inputs and the `K`
/// targets, row-major.
pub(super) struct WarmSample {
    pub(super) sc: Scaler,
    pub(super) extra: Vec<(f64, f64)>,
    pub(super) xs: Vec<f64>,
    pub(super) ys: Vec<f64>,
}

impl AutoKernel {
    /// The Taylor degree the experts use for input dimension `d` (None: random features).
    pub(super) fn degree_for(&self, d: usize) -> Result<Option<usize>> {
        let m = taylor_degree(d, self.cfg.max_taylor_features);
        match self.cfg.features {
            ExpertFeatures::Rff => Ok(None),
            ExpertFeatures::Auto => Ok(m.filter(|&m| m >= 3)),
            ExpertFeatures::Taylor => match m {
                Some(m) if m >= 1 => Ok(Some(m)),
                _ => crate::input_err!(
                    "Taylor features of degree 1 need {} features for d = {d}, more than max_taylor_features = {}",
                    d + 1,
                    self.cfg.max_taylor_features
                ),
            },
        }
    }

    /// Geometric centres of the width and regularisation grids (the warm-up's choice).
    pub(super) fn grid_centre(&self) -> (f64, f64) {
        let centre = |v: &[f64]| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (lo * hi).sqrt()
        };
        (centre(&self.cfg.widths), centre(&self.cfg.lams))
    }

    /// The width multiples of the warm-up's kernel ridge predictors (`warm_widths`, or
    /// the centre of `widths` alone) and their ridge (the centre of `lams`).
    pub(super) fn warm_widths(&self) -> (Vec<f64>, f64) {
        let (c, lam) = self.grid_centre();
        match self.cfg.warm_widths.as_slice() {
            [] => (vec![c], lam),
            ws => (ws.to_vec(), lam),
        }
    }

    /// The number of the warm-up's predictors (of each output, with
    /// `warm_neighbour_outputs`): its widths and the nearest row.
    pub(super) fn warm_predictor_count(&self) -> usize {
        self.warm_widths().0.len() + usize::from(self.cfg.warm_neighbour)
    }

    /// The warm-up rows standardised by their own location and spread.
    pub(super) fn warm_sample(&self, d: usize) -> WarmSample {
        let (sc, extra) = super::outputs::scalers(&self.warm_x, d, &self.warm_y, self.k);
        let mut xs = vec![0.0; self.warm_x.len()];
        for (o, r) in xs.chunks_exact_mut(d).zip(self.warm_x.chunks_exact(d)) {
            sc.x_into(r, o);
        }
        let ys = super::outputs::standardise_y(&sc, &extra, &self.warm_y);
        WarmSample { sc, extra, xs, ys }
    }

    /// Warm-up prediction: the warm-up's predictors ([`Self::warm_candidates`]) mixed.
    pub(super) fn warm_predict(&self, x: &[f64]) -> f64 {
        self.warm_combine(&self.warm_candidates(x))
    }

    /// The warm-up's prediction from its predictors': AdaHedge's mix when there are
    /// several (`src/mixture/warm_mix.rs`), else the one.
    pub(super) fn warm_combine(&self, z: &[f64]) -> f64 {
        match z {
            [one] => *one,
            _ => self.warm_mix.predict(z),
        }
    }

    /// The warm-up's predictions at `x`: kernel ridge regression on the rows so far,
    /// standardised by their own mean and spread, one per width of
    /// [`Self::warm_widths`], then (with `warm_neighbour`) the target of the nearest of
    /// those rows (`src/mixture/warm_mix.rs`). All 0 before the first row.
    pub(super) fn warm_candidates(&self, x: &[f64]) -> Vec<f64> {
        let (cs, lam) = self.warm_widths();
        let count = self.warm_predictor_count();
        if self.warm_y.is_empty() {
            return vec![0.0; count];
        }
        let d = x.len();
        let WarmSample { sc, xs, ys, .. } = self.warm_sample(d);
        let mut q = vec![0.0; d];
        sc.x_into(x, &mut q);
        let mut z = Vec::with_capacity(count);
        let sample = crate::mixture::warm_krr::Sample { xs: &xs, d, ys: &ys, k: 1 };
        crate::mixture::warm_krr::predict_widths(sample, &q, &cs, lam, &mut z);
        for v in &mut z {
            *v = sc.y_back(*v);
        }
        if self.cfg.warm_neighbour {
            let i = crate::mixture::warm_mix::nearest(&xs, d, &q).unwrap_or(0);
            z.push(self.warm_y[i]);
        }
        z
    }

    /// Fixes the scale on the warm-up rows, builds the experts and replays the rows.
    pub(super) fn fit(&self, wx: &[f64], wy: &[f64], d: usize) -> Result<Fitted> {
        let k = self.k;
        let (scaler, y_extra) = super::outputs::scalers(wx, d, wy, k);
        let sc = &scaler;
        let extra = y_extra.iter().flat_map(|(l, s)| [l, s]);
        if !sc
            .x_loc
            .iter()
            .chain(&sc.x_scale)
            .chain([&sc.y_loc, &sc.y_scale])
            .chain(extra)
            .all(|v| v.is_finite())
            || !sc
                .x_scale
                .iter()
                .chain([&sc.y_scale])
                .chain(y_extra.iter().map(|e| &e.1))
                .all(|v| *v > 0.0)
        {
            return Err(crate::KsError::Numerical(
                "AutoKernel: the warm-up rows' location or spread overflows double precision \
                 (inputs or targets too large); the learner is unchanged"
                    .into(),
            ));
        }
        let mut xs = vec![0.0; wx.len()];
        for (o, r) in xs.chunks_exact_mut(d).zip(wx.chunks_exact(d)) {
            scaler.x_into(r, o);
        }
        let ys = super::outputs::standardise_y(&scaler, &y_extra, wy);
        let rho = median_distance(&xs, d);
        let degree = self.degree_for(d)?;
        let mut grid = FeatureGrid {
            rho,
            degree,
            n_features: self.cfg.n_features,
            rng: Rng::new(self.cfg.seed),
        };
        let (mut experts, mut specs) = (Vec::new(), Vec::new());
        grid.push(&self.cfg.widths, &self.cfg.lams, 1.0, &mut experts, &mut specs)?;
        // PKAWV on the fixed Nystrom dictionary of the standardised warm-up rows.
        let m = ys.len();
        for &c in &self.cfg.nystrom_widths {
            for &lam in &self.cfg.nystrom_lams {
                let sigma = c * rho;
                let e =
                    NystromAwv::with_dictionary(Kernel::Gaussian { sigma }, lam, &xs, d, false)?;
                experts.push(AnyLearner::NystromAwv(e));
                specs.push(ExpertSpec::nystrom(m, sigma, lam));
            }
        }
        // Discounted feature experts (drawn after the others: their seeds do not
        // change the undiscounted experts').
        for &gamma in &self.cfg.discounts {
            let (widths, lams) = (&self.cfg.discount_widths, &self.cfg.discount_lams);
            grid.push(widths, lams, gamma, &mut experts, &mut specs)?;
        }
        // Linear experts: online ridge on (1, x) (standardised), undiscounted and
        // at every discount, so that trends extrapolate.
        if self.cfg.linear {
            for gamma in std::iter::once(1.0).chain(self.cfg.discounts.iter().copied()) {
                let e = LinearAwvLearner::new(LINEAR_LAM, true)?.with_gamma(gamma)?;
                experts.push(AnyLearner::Linear(e));
                specs.push(ExpertSpec::linear(d, gamma));
            }
        }
        // Constant-step experts (FOGD, Lu et al. 2016), last: their seeds come after
        // every other expert's.
        for &c in &self.cfg.fogd_widths {
            let sigma = c * rho;
            let p = FogdParams {
                kernel: Some(Kernel::Gaussian { sigma }),
                n_features: FOGD_FREQUENCIES,
                seed: grid.rng.next_u64(),
                ..Default::default()
            };
            let e = Fogd::new(&p)?;
            specs.push(ExpertSpec::fogd(2 * FOGD_FREQUENCIES, sigma, p.lr));
            experts.push(AnyLearner::Fogd(e));
        }
        // PKAWV with the Laplacian kernel on the same dictionary, last (no seeds): a
        // rougher kernel of L1 distances, for targets with kinks, jumps and inputs
        // that matter one at a time (docs/autokernel.md, step 4).
        if !self.cfg.laplace_widths.is_empty() {
            let rho1 = median_l1_distance(&xs, d);
            for &c in &self.cfg.laplace_widths {
                for &lam in &self.cfg.laplace_lams {
                    let sigma = c * rho1;
                    let kernel = Kernel::Laplacian { sigma };
                    let e = NystromAwv::with_dictionary(kernel, lam, &xs, d, false)?;
                    experts.push(AnyLearner::NystromAwv(e));
                    specs.push(ExpertSpec::laplacian(m, sigma, lam));
                }
            }
        }
        let n = experts.len();
        let mut mixture =
            Mixture::new(experts, make_rule(&self.cfg.rule, n, self.cfg.resolved_share())?)?;
        let loss_window = self.cfg.resolved_loss_window();
        if loss_window > 0 {
            mixture = mixture.with_loss_scale(loss_window)?;
        }
        mixture.set_threads(self.cfg.threads)?;
        let warm_z = if k == 1 {
            let mut trace = crate::mixture::Trace::default();
            mixture.progressive_trace(&xs, ys.len(), d, &ys, &mut trace)?;
            trace.experts.iter().map(|&z| scaler.y_back(z)).collect()
        } else {
            let rows = crate::learners::Rows { x: &xs, d, y: &ys };
            crate::multi::MultiOutput::predict_learn_many_multi(
                &mut mixture,
                rows,
                &mut Vec::new(),
            )?;
            Vec::new()
        };
        Ok(Fitted { scaler, y_extra, rho, specs, mixture, warm_z, xs: vec![0.0; d] })
    }

    pub(super) fn standardise_block(
        f: &Fitted,
        x: &[f64],
        d: usize,
        y: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let mut xs = vec![0.0; x.len()];
        for (o, r) in xs.chunks_exact_mut(d).zip(x.chunks_exact(d)) {
            f.scaler.x_into(r, o);
        }
        (xs, y.iter().map(|&v| f.scaler.y(v)).collect())
    }
}

/// A Taylor expert's parameters (blocks of rounds: `block_size` None).
fn taylor(sigma: f64, degree: usize, lam: f64, gamma: f64) -> TaylorAwvParams {
    TaylorAwvParams { sigma, degree, lam, gamma, ..Default::default() }
}

/// The feature experts (Taylor of degree `degree`, else random features) of grids of
/// widths (times `rho`) and ridges; one seed drawn from `rng` per expert, in order (a
/// Taylor expert does not use it).
struct FeatureGrid {
    rho: f64,
    degree: Option<usize>,
    n_features: usize,
    rng: Rng,
}

impl FeatureGrid {
    /// One expert per width and ridge (widths outer) at forgetting factor `gamma`,
    /// appended to `experts` with its spec.
    fn push(
        &mut self,
        widths: &[f64],
        lams: &[f64],
        gamma: f64,
        experts: &mut Vec<AnyLearner>,
        specs: &mut Vec<ExpertSpec>,
    ) -> Result<()> {
        for &c in widths {
            for &lam in lams {
                let sigma = c * self.rho;
                let seed = self.rng.next_u64();
                let (e, taylor_degree, n_features) = match self.degree {
                    // Blocks of rounds (block_size=None): a batch equals the
                    // round loop up to rounding (docs/choices.md, AutoKernel).
                    Some(m) => {
                        let e = TaylorAwv::new(&taylor(sigma, m, lam, gamma))?;
                        (AnyLearner::TaylorAwv(e), Some(m), 0)
                    }
                    None => {
                        let n = self.n_features;
                        let e = RffAwv::new(&rff(sigma, n, lam, seed, gamma))?;
                        (AnyLearner::RffAwv(e), None, n)
                    }
                };
                experts.push(e);
                specs.push(ExpertSpec::feature(taylor_degree, n_features, sigma, lam, gamma));
            }
        }
        Ok(())
    }
}

impl ExpertSpec {
    /// A Taylor (`taylor_degree`) or random-feature (`n_features`) AWV expert.
    fn feature(
        taylor_degree: Option<usize>,
        n_features: usize,
        sigma: f64,
        lam: f64,
        gamma: f64,
    ) -> Self {
        let (dictionary, linear, first_order, laplacian) = (0, false, false, false);
        ExpertSpec {
            taylor_degree,
            n_features,
            dictionary,
            sigma,
            lam,
            gamma,
            linear,
            first_order,
            laplacian,
        }
    }

    /// PKAWV on a fixed dictionary of `m` points, undiscounted.
    fn nystrom(m: usize, sigma: f64, lam: f64) -> Self {
        ExpertSpec { dictionary: m, ..Self::feature(None, 0, sigma, lam, 1.0) }
    }

    /// Online ridge on `(1, x)` for `d`-dimensional `x` (`sigma` 0).
    fn linear(d: usize, gamma: f64) -> Self {
        ExpertSpec { linear: true, ..Self::feature(None, d + 1, 0.0, LINEAR_LAM, gamma) }
    }

    /// FOGD on `n_features` random features of width `sigma`, step `lr` (in `lam`).
    fn fogd(n_features: usize, sigma: f64, lr: f64) -> Self {
        ExpertSpec { first_order: true, ..Self::feature(None, n_features, sigma, lr, 1.0) }
    }

    /// PKAWV with the Laplacian kernel of width `sigma` on a fixed dictionary of `m`
    /// points, undiscounted.
    fn laplacian(m: usize, sigma: f64, lam: f64) -> Self {
        ExpertSpec { laplacian: true, ..Self::nystrom(m, sigma, lam) }
    }
}

/// A random-feature expert's parameters ("cossin" features of a Gaussian kernel).
fn rff(sigma: f64, n_features: usize, lam: f64, seed: u64, gamma: f64) -> RffAwvParams {
    let kernel = Some(Kernel::Gaussian { sigma });
    let features = RffVariant::CosSin;
    RffAwvParams { kernel, n_features, lam, features, seed, gamma, ..Default::default() }
}
