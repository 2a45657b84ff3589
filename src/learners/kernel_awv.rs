//! KernelAWV: the exact kernel Vovk-Azoury-Warmuth forecaster (and online kernel
//! ridge regression with `ridge = true`).
//!
//! PKAWV paper (Jezequel, Gaillard, Rudi 2019), eq. (3) and Prop. 1. With
//! `G = K_{t-1} + lam I` (Gram matrix of the past inputs),
//! `k = (k(x_s, x_t))_{s<t}` and `kappa_t = k(x_t, x_t)`:
//! ```text
//! p_KRR = k^T G^{-1} Y_{t-1}                 (online kernel ridge regression)
//! s_t   = kappa_t + lam - k^T G^{-1} k        (>= lam)
//! y_hat = (lam / s_t) p_KRR                   (AWV, = -lam [(K_t + lam I)^{-1} (Y_{t-1}, 0)]_t)
//! ```
//! **Implementation: bordered Cholesky instead of the bordered inverse.** We keep
//! the lower Cholesky factor `L` of `K_t + lam I` and `z = L^{-1} Y_t`. Bordering
//! `K_t + lam I` by one point appends one row to `L`: `l = L^{-1} k` (forward
//! substitution), pivot `rho = sqrt(s_t)` (`s_t = kappa_t + lam - l^T l`), and
//! `p_KRR = l^T z`; after `y_t` is revealed `z` grows by `(y_t - p_KRR) / rho`.
//! This is the same O(t^2) per round as a bordered inverse of `G`, but reads
//! half the matrix once per round instead of three times (mat-vec + rank-one
//! update), and it is backward stable. `s_t` is clipped at `lam` from below (its
//! exact value is `>= lam`), so predictions never blow up.
//!
//! **Blocked rounds.** Forward substitution is organised in panels of `PANEL`
//! columns: `l_i = (k_i - sum_{panels P before i} L[i,P].l[P] - L[i,P_i<i].l[..]) / L_ii`,
//! the sum always taken in that order with the same dot product. A batch of
//! rounds (`progressive_predict`, `learn_many`) solves up to `BLOCK` new rows at
//! once in a right-looking sweep that reads each stored panel once per block
//! instead of once per round; because every entry is computed by exactly the
//! same sequence of floating-point operations, the result is bit-identical to a
//! loop of single rounds, whatever the batch boundaries.
//!
//! **Several outputs** (docs/choices.md, "Multi-output AWV"): `K` target columns
//! share `L`; `Y_t` and `z = L^{-1} Y_t` are then `t x K` (row-major), each
//! prediction `l^T z_j`. A column added later has `Y_j = 0`, so `z_j = 0`.
//!
//! Memory: `L` holds `t (t + 1) / 2` doubles, so `max_size` rounds need
//! `4 max_size^2` bytes (1.6 GB for the default 20000); a stream that would exceed
//! `max_size` is refused before any state change.

use super::batch::Rows;
use super::online_learner::OnlineLearner;
use crate::error::{positive, Result};
use crate::kernels::Kernel;
use crate::linalg::blas::{dot, dot4};
use crate::uncertainty::{noise_discount, NoiseLevel, OtherOutputs};
use serde::{Deserialize, Serialize};

/// Column panel of the forward substitution (fixes the summation order).
const PANEL: usize = 256;
/// Rounds solved together in a batch.
const BLOCK: usize = 96;

#[inline]
fn row_start(i: usize) -> usize {
    i * (i + 1) / 2
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelAwv {
    kernel: Kernel,
    lam: f64,
    ridge: bool,
    max_size: usize,
    d: Option<usize>,
    /// Past inputs, row-major `t x d`.
    xs: Vec<f64>,
    /// Past targets (`t x K` row-major; `K` = `ys.len() / t`).
    ys: Vec<f64>,
    /// Lower Cholesky factor of `K_t + lam I`, packed by rows (row `i` has `i + 1` entries).
    chol: Vec<f64>,
    /// `z = L^{-1} Y_t` (`t x K` row-major).
    z: Vec<f64>,
    /// `sum_t y_t^2 phi_t^T A_t^{-1} phi_t` (regret diagnostic, P19 proof of Prop. 1).
    regret_term: f64,
    /// Noise level of the progressive residuals (the predictive std), of output 1.
    noise: NoiseLevel,
    /// Those of outputs `2..K` (empty with one output; absent in older states).
    #[serde(default)]
    noise_rest: OtherOutputs,
    /// The input of [`OnlineLearner::predict_keep`] and its new factor row.
    #[serde(skip)]
    kept: super::kept::Kept,
    #[serde(skip)]
    kept_row: Option<NewRow>,
}

/// One new row of the factor for a point `x`: `l = L^{-1} k`, `s = kappa + lam - l^T l`.
#[derive(Clone, Debug)]
struct NewRow {
    l: Vec<f64>,
    s: f64,
}

crate::params! {
    /// The parameters of [`KernelAwv`] (defaults: those of the Python class `KernelAWV`).
    pub struct KernelAwvParams {
        /// The kernel.
        kernel: Option<Kernel> = None => "object", "a kernel", required;
        /// Ridge parameter `lambda`.
        lam: f64 = 1.0 => "float", "> 0";
        /// Online ridge (predict with `A_{t-1}`) instead of AWV.
        ridge: bool = false => "bool", "True or False";
        /// Rounds kept at most (the factor is `max_size^2 / 2` doubles).
        max_size: usize = 20000 => "int", ">= 1";
    }
}

impl KernelAwvParams {
    pub fn validate(&self) -> Result<()> {
        crate::params::required("KernelAWV", "a kernel", &self.kernel)?;
        positive("lam", self.lam)?;
        if self.max_size == 0 {
            return crate::param_err!("max_size must be >= 1, got 0");
        }
        Ok(())
    }
}

impl KernelAwv {
    pub fn new(p: &KernelAwvParams) -> Result<Self> {
        p.validate()?;
        let Some(kernel) = p.kernel else { return crate::param_err!("KernelAWV needs a kernel") };
        let (lam, ridge, max_size) = (p.lam, p.ridge, p.max_size);
        // At capacity the factor holds max_size (max_size + 1) / 2 doubles.
        crate::limits::check_doubles(
            &format!("KernelAWV with max_size = {max_size} (a factor of max_size^2 / 2 doubles)"),
            Some(crate::limits::packed(max_size) + 3 * max_size as u128),
        )?;
        Ok(KernelAwv {
            kernel,
            lam,
            ridge,
            max_size,
            d: None,
            xs: Vec::new(),
            ys: Vec::new(),
            chol: Vec::new(),
            z: Vec::new(),
            regret_term: 0.0,
            noise: NoiseLevel::default(),
            noise_rest: OtherOutputs::default(),
            kept: Default::default(),
            kept_row: None,
        })
    }

    super::batch::copy_getters!(
        kernel: Kernel,
        lam: f64,
        ridge: bool,
        max_size: usize,
        regret_term: f64,
    );
    fn t(&self) -> usize {
        self.d.map_or(0, |d| self.xs.len() / d.max(1))
    }
    /// `K` once the first round fixed it.
    fn outputs(&self) -> Option<usize> {
        self.ys.len().checked_div(self.t())
    }
    /// `l^T z_j` for the `K` columns of `z` (over the first `l.len()` rows) into
    /// `out`; one column is the dot product of the single-output learner.
    fn l_dot_z(&self, l: &[f64], out: &mut [f64]) {
        let k = out.len();
        if k == 1 {
            out[0] = dot(l, &self.z[..l.len()]);
            return;
        }
        out.fill(0.0);
        for (li, zi) in l.iter().zip(self.z.chunks_exact(k)) {
            crate::linalg::blas::axpy(*li, zi, out);
        }
    }

    /// The factor `L` (lower triangular) of `K_t + lam I` as a dense row-major `t x t` matrix.
    pub fn cholesky_dense(&self) -> Vec<f64> {
        let t = self.t();
        let mut out = vec![0.0; t * t];
        for i in 0..t {
            out[i * t..i * t + i + 1]
                .copy_from_slice(&self.chol[row_start(i)..row_start(i) + i + 1]);
        }
        out
    }

    /// Kernel row `k(x_s, x)` for `s < t` into `out`.
    fn kernel_row(&self, x: &[f64], t: usize, out: &mut [f64]) {
        let d = x.len();
        self.kernel.row_into(x, &self.xs[..t * d], d, &mut out[..t]);
    }

    /// Forward substitution `L l = k` over the first `t` rows (in place), in the
    /// panel order described in the module header.
    fn forward(&self, l: &mut [f64], t: usize) {
        let mut p0 = 0;
        while p0 < t {
            let p1 = (p0 + PANEL).min(t);
            // Within the panel: rows i in [p0, p1) against columns [p0, i).
            for i in p0..p1 {
                let r = row_start(i);
                let s = dot(&self.chol[r + p0..r + i], &l[p0..i]);
                l[i] = (l[i] - s) / self.chol[r + i];
            }
            // Right-looking update of the rows below the panel.
            for i in p1..t {
                let r = row_start(i);
                let s = dot(&self.chol[r + p0..r + p1], &l[p0..p1]);
                l[i] -= s;
            }
            p0 = p1;
        }
    }

    /// `l = L^{-1} k(x)` and `s = kappa + lam - l^T l` (clipped at `lam`).
    fn new_row(&self, x: &[f64]) -> NewRow {
        let t = self.t();
        let mut l = vec![0.0; t];
        self.kernel_row(x, t, &mut l);
        self.forward(&mut l, t);
        let s = (self.kernel.diag(x) + self.lam - dot(&l, &l)).max(self.lam);
        NewRow { l, s }
    }

    /// The prediction from a new row: AWV `(lam / s) l^T z`, or ridge `l^T z`.
    fn prediction(&self, row: &NewRow) -> f64 {
        let mut p = [0.0];
        self.predictions(row, &mut p);
        p[0]
    }

    /// [`Self::prediction`] of the `K = out.len()` outputs.
    fn predictions(&self, row: &NewRow, out: &mut [f64]) {
        self.l_dot_z(&row.l, out);
        if !self.ridge {
            out.iter_mut().for_each(|p| *p *= self.lam / row.s);
        }
    }

    /// Appends `(x, y)` with its new factor row; returns the prediction made before `y`.
    fn push(&mut self, x: &[f64], y: f64, row: NewRow) -> f64 {
        let mut p = [0.0];
        self.push_multi(x, std::slice::from_ref(&y), row, &mut p);
        p[0]
    }

    /// [`Self::push`] with `K = y.len()` targets, the predictions written into `out`.
    fn push_multi(&mut self, x: &[f64], y: &[f64], row: NewRow, out: &mut [f64]) {
        let t = self.t();
        self.predictions(&row, out);
        let mut p_krr = [0.0; 1];
        let mut p_many = Vec::new();
        let p_krr: &mut [f64] = if y.len() == 1 {
            &mut p_krr
        } else {
            p_many.resize(y.len(), 0.0);
            &mut p_many
        };
        self.l_dot_z(&row.l[..t], p_krr);
        let rho = row.s.sqrt();
        self.grow_chol(t + 1);
        self.chol.extend_from_slice(&row.l);
        self.chol.push(rho);
        self.z.extend(y.iter().zip(p_krr.iter()).map(|(yj, pj)| (yj - pj) / rho));
        self.xs.extend_from_slice(x);
        self.ys.extend_from_slice(y);
        if self.d.is_none() {
            self.d = Some(x.len());
        }
        // phi_t^T A_t^{-1} phi_t = (s - lam) / s for the AWV covariance A_t = C_t + lam I
        // (A_t^{-1} phi_t leverage; equals 1 - lam/s by the Schur complement).
        self.regret_term += crate::awv::outputs::sum_sq(y) * (1.0 - self.lam / row.s);
        // The noise level of each output (one leverage, docs/uncertainty.md).
        let delta = self.delta(&row);
        self.noise_rest.observe(&mut self.noise, noise_discount(1.0), (y, &*out), delta, 1.0);
    }

    /// `delta = phi^T A_{t-1}^{-1} phi = (s - lam) / lam` in feature space, with
    /// `A_{t-1} = lam I + sum_{s<t} phi_s phi_s^T` (Woodbury: `s - lam = kappa -
    /// k^T (K + lam I)^{-1} k = lam phi^T A^{-1} phi`).
    fn delta(&self, row: &NewRow) -> f64 {
        (row.s - self.lam) / self.lam
    }

    /// Reserves room for `rows` rows of the factor without doubling past the capacity.
    fn grow_chol(&mut self, rows: usize) {
        let need = row_start(rows);
        if self.chol.capacity() < need {
            let cap_rows = (rows + rows / 2 + 16).min(self.max_size.max(rows));
            self.chol.reserve_exact(row_start(cap_rows) - self.chol.len());
            let xcap = cap_rows * self.d.unwrap_or(1);
            if self.xs.capacity() < xcap {
                self.xs.reserve_exact(xcap - self.xs.len());
            }
        }
    }

    /// A batch of rounds: rows `xs` (row-major, `n x d`) with targets `ys`. Returns
    /// the predictions made before each target. Bit-identical to single rounds.
    /// Stops with `Interrupted` between blocks or inside one (before its rows are appended).
    /// `ys` holds `K` targets per row (row-major).
    fn rounds(&mut self, xs: &[f64], d: usize, ys: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let n = xs.len() / d;
        let k = ys.len() / n.max(1);
        let mut b0 = 0;
        while b0 < n {
            crate::interrupt::poll()?;
            let b1 = (b0 + BLOCK).min(n);
            self.block(&xs[b0 * d..b1 * d], d, &ys[b0 * k..b1 * k], out)?;
            b0 = b1;
        }
        Ok(())
    }

    /// Solves `b` new rows together (right-looking panel sweep), then predicts and
    /// appends them in order. Every entry of every row gets exactly the operations
    /// of [`KernelAwv::forward`], in the same order (see the module header).
    fn block(&mut self, xs: &[f64], d: usize, ys: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let b = xs.len() / d;
        let k = ys.len() / b;
        let t0 = self.t();
        let mut push = |me: &mut Self, x: &[f64], y: &[f64], row: NewRow| {
            let s = out.len();
            out.resize(s + k, 0.0);
            me.push_multi(x, y, row, &mut out[s..]);
        };
        if b == 1 {
            let kept = self.kept.take(xs, self.n_seen());
            let row = match self.kept_row.take() {
                Some(row) if kept => row,
                _ => self.new_row(xs),
            };
            push(self, xs, ys, row);
            return Ok(());
        }
        let xr = |r: usize| &xs[r * d..(r + 1) * d];
        // Row r (global row t0 + r) has t0 + r entries, initialised to the kernel row.
        let mut ls: Vec<Vec<f64>> = (0..b)
            .map(|r| {
                let mut l = vec![0.0; t0 + r];
                self.kernel.row_into(xr(r), &self.xs[..t0 * d], d, &mut l[..t0]);
                for q in 0..r {
                    l[t0 + q] = self.kernel.eval(xr(r), xr(q));
                }
                l
            })
            .collect();
        let mut ss = vec![0.0; b];
        let mut done = vec![false; b];
        let finish = |ls: &Vec<Vec<f64>>, r: usize, ss: &mut Vec<f64>, done: &mut Vec<bool>| {
            ss[r] = (self.kernel.diag(xr(r)) + self.lam - dot(&ls[r], &ls[r])).max(self.lam);
            done[r] = true;
        };
        if t0 == 0 {
            finish(&ls, 0, &mut ss, &mut done);
        }
        let total = t0 + b;
        let mut seg = vec![0.0; PANEL];
        let mut p0 = 0;
        while p0 < total - 1 {
            // Nothing is appended before the end of the block: stopping here keeps the state.
            crate::interrupt::poll()?;
            let p1 = (p0 + PANEL).min(total);
            // Within-panel steps, rows in order.
            for r in 0..b {
                let end = p1.min(t0 + r);
                let (head, tail) = ls.split_at_mut(r);
                let lr = &mut tail[0];
                for i in p0..end {
                    let (s, lii) = if i < t0 {
                        let ri = row_start(i);
                        (dot(&self.chol[ri + p0..ri + i], &lr[p0..i]), self.chol[ri + i])
                    } else {
                        let q = i - t0;
                        (dot(&head[q][p0..i], &lr[p0..i]), ss[q].sqrt())
                    };
                    lr[i] = (lr[i] - s) / lii;
                }
                if !done[r] && p1 >= t0 + r {
                    finish(&ls, r, &mut ss, &mut done);
                }
            }
            // Right-looking update of the entries below the panel.
            let w = p1 - p0;
            for i in p1..total {
                if i < t0 {
                    let ri = row_start(i);
                    seg[..w].copy_from_slice(&self.chol[ri + p0..ri + p1]);
                } else {
                    seg[..w].copy_from_slice(&ls[i - t0][p0..p1]);
                }
                let first = if i < t0 { 0 } else { i - t0 + 1 };
                let rows = &mut ls[first..];
                let mut quads = rows.chunks_exact_mut(4);
                for q in &mut quads {
                    let s = dot4(
                        &seg[..w],
                        [&q[0][p0..p1], &q[1][p0..p1], &q[2][p0..p1], &q[3][p0..p1]],
                    );
                    for (lr, sj) in q.iter_mut().zip(s) {
                        lr[i] -= sj;
                    }
                }
                for lr in quads.into_remainder() {
                    let s = dot(&seg[..w], &lr[p0..p1]);
                    lr[i] -= s;
                }
            }
            p0 = p1;
        }
        for (r, l) in ls.into_iter().enumerate() {
            let row = NewRow { l, s: ss[r] };
            push(self, xr(r), &ys[r * k..(r + 1) * k], row);
        }
        Ok(())
    }
}

impl OnlineLearner for KernelAwv {
    fn input_dim(&self) -> Option<usize> {
        self.d
    }

    fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
        match self.outputs() {
            Some(k) if k > 1 && y.is_some() => crate::multi::single_output_err(k),
            _ => self.kernel.check_point(x),
        }
    }

    /// At capacity the stored points are `max_size x d` doubles beside the factor.
    fn check_input_dim(&self, d: usize) -> Result<()> {
        let m = self.max_size as u128;
        crate::limits::check_input_doubles(
            &format!("KernelAWV with max_size = {} on {d}-dimensional inputs", self.max_size),
            Some(crate::limits::packed(self.max_size) + m * (d as u128 + 3)),
        )
    }

    fn check_capacity(&self, n_new: usize, _d: usize) -> Result<()> {
        let t = self.t();
        if t.saturating_add(n_new) > self.max_size {
            return crate::input_err!(
                "KernelAWV stores every past point (O(t^2) memory): {t} seen + {n_new} new rounds would exceed \
                 max_size = {} (raise max_size, about 4 max_size^2 bytes of memory, or use an approximation such \
                 as NystromAWV or TaylorAWV)",
                self.max_size
            );
        }
        Ok(())
    }

    fn predict(&self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        Ok(self.prediction(&self.new_row(x)))
    }

    fn noise_std(&self) -> Option<f64> {
        Some(self.noise.variance().sqrt())
    }

    /// Past inputs extended by zeros: a Gaussian or Laplacian kernel depends on the
    /// inputs through `||x - x'||`, which zeros leave unchanged, so the factor and every
    /// other quantity are those of the learner fed the extended rows (a product kernel
    /// is refused: a zero coordinate changes its values).
    fn widen_inputs(&mut self, d: usize) -> Result<()> {
        let Some(d0) = self.d else { return Ok(()) };
        if d <= d0 || !matches!(self.kernel, Kernel::Gaussian { .. } | Kernel::Laplacian { .. }) {
            return super::cannot_widen(d0, d);
        }
        let k = self.outputs().unwrap_or(1);
        crate::limits::check_input_doubles(
            &format!("KernelAWV with max_size = {} on {d}-dimensional inputs", self.max_size),
            self.capacity_doubles(d, k),
        )?;
        let mut xs = Vec::with_capacity(self.t() * d);
        for row in self.xs.chunks_exact(d0) {
            xs.extend_from_slice(row);
            xs.extend(std::iter::repeat_n(0.0, d - d0));
        }
        self.xs = xs;
        self.d = Some(d);
        self.kept.clear();
        self.kept_row = None;
        Ok(())
    }

    fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
        self.one_output()?;
        let row = self.new_row(x);
        Ok(Some((self.prediction(&row), self.noise.std(self.delta(&row)))))
    }

    fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
        self.one_output()?;
        let row = self.new_row(x);
        let p = self.prediction(&row);
        self.kept_row = Some(row);
        self.kept.set(x, self.n_seen());
        Ok(p)
    }

    fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
        self.one_output()?;
        self.check_capacity(1, x.len())?;
        let kept = self.kept.take(x, self.n_seen());
        let row = match self.kept_row.take() {
            Some(row) if kept => row,
            _ => self.new_row(x),
        };
        Ok(self.push(x, y, row))
    }

    fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
        let mut scratch = Vec::new();
        let out = super::batch::or_scratch(out, &mut scratch, rows.y.len());
        self.check_capacity(rows.y.len(), rows.d)?;
        self.rounds(rows.x, rows.d, rows.y, out)
    }

    /// Integer weights as repeated rows (its state keeps rows without weights:
    /// docs/choices.md, "Sample weights").
    fn repeats_weights(&self) -> bool {
        true
    }

    fn n_seen(&self) -> u64 {
        self.t() as u64
    }

    fn dim(&self) -> usize {
        self.t()
    }
}

impl KernelAwv {
    /// Refuses the single-output protocol on `K > 1` outputs.
    fn one_output(&self) -> Result<()> {
        match self.outputs() {
            Some(k) if k > 1 => crate::multi::single_output_err(k),
            _ => Ok(()),
        }
    }

    /// The doubles of the stored points, targets and `z` at capacity for `k` outputs.
    fn capacity_doubles(&self, d: usize, k: usize) -> Option<u128> {
        let m = self.max_size as u128;
        Some(crate::limits::packed(self.max_size) + m * (d as u128 + 1 + 2 * k as u128))
    }
}

impl crate::multi::MultiOutput for KernelAwv {
    fn n_outputs(&self) -> Option<usize> {
        self.outputs()
    }

    fn check_outputs(&self, k: usize, d: usize) -> Result<()> {
        crate::awv::outputs::check_outputs(k)?;
        crate::limits::check_input_doubles(
            &format!("KernelAWV with max_size = {} and {k} outputs", self.max_size),
            self.capacity_doubles(d, k),
        )
    }

    fn predict_multi(&self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let row = self.new_row(x);
        let s = out.len();
        out.resize(s + self.outputs().unwrap_or(1), 0.0);
        self.predictions(&row, &mut out[s..]);
        Ok(())
    }

    fn predict_std_multi(
        &self,
        x: &[f64],
        means: &mut Vec<f64>,
        stds: &mut Vec<f64>,
    ) -> Result<bool> {
        let row = self.new_row(x);
        let (s, k) = (means.len(), self.outputs().unwrap_or(1));
        means.resize(s + k, 0.0);
        self.predictions(&row, &mut means[s..]);
        self.noise_rest.stds(&self.noise, k, self.delta(&row), stds);
        Ok(true)
    }

    fn noise_stds_multi(&self, out: &mut Vec<f64>) -> bool {
        self.noise_rest.levels(&self.noise, self.outputs().unwrap_or(1), out);
        true
    }

    fn predict_keep_multi(&mut self, x: &[f64], out: &mut Vec<f64>) -> Result<()> {
        let row = self.new_row(x);
        let s = out.len();
        out.resize(s + self.outputs().unwrap_or(1), 0.0);
        self.predictions(&row, &mut out[s..]);
        self.kept_row = Some(row);
        self.kept.set(x, self.n_seen());
        Ok(())
    }

    fn predict_learn_multi(&mut self, x: &[f64], y: &[f64], out: &mut Vec<f64>) -> Result<()> {
        if self.outputs().is_some_and(|k| k != y.len()) {
            return crate::multi::single_output_err(self.outputs().unwrap_or(1));
        }
        self.check_capacity(1, x.len())?;
        self.block(x, x.len(), y, out)
    }

    fn predict_learn_many_multi(&mut self, rows: Rows<'_>, out: &mut Vec<f64>) -> Result<()> {
        let Rows { x, d, y } = rows;
        self.check_capacity(x.len() / d, d)?;
        self.rounds(x, d, y, out)
    }

    /// `z` and `Y` gain `k` zero columns (`z_j = L^{-1} 0 = 0`).
    fn add_outputs(&mut self, k: usize) -> Result<()> {
        let (Some(k0), Some(d)) = (self.outputs(), self.d) else {
            return crate::multi::before_first_round();
        };
        crate::awv::outputs::check_added(k0, k, |total| {
            let what = format!("KernelAWV with max_size = {} and {total} outputs", self.max_size);
            (what, self.capacity_doubles(d, total))
        })?;
        let widen = |v: &[f64]| crate::awv::outputs::widen_columns(v, k0, k);
        self.ys = widen(&self.ys);
        self.z = widen(&self.z);
        self.noise_rest.add(&self.noise, k0, k);
        self.kept.clear();
        self.kept_row = None;
        Ok(())
    }
}

// The format version of a pickled KernelAwv: bump it when a serialised field changes.
crate::state::state_version!(KernelAwv, 5);

impl crate::state::ValidState for KernelAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let t = self.t();
        at_most("rounds stored", t, self.max_size)?;
        self.noise.validate()?;
        self.noise_rest.validate(self.outputs().unwrap_or(1))?;
        match self.d {
            Some(d) => {
                ensure(d >= 1, || "the input dimension is 0".into())?;
                len_is("past inputs", self.xs.len(), product("past inputs", t, d)?)?;
            }
            None => ensure(t == 0 && self.xs.is_empty(), || "data without a dimension".into())?,
        }
        len_is("factor", self.chol.len(), t.checked_mul(t + 1).map_or(usize::MAX, |v| v / 2))?;
        let k = self.outputs().unwrap_or(1);
        let want = if t == 0 { 0 } else { product("targets", t, k.max(1))? };
        ensure(self.ys.len() == want, || format!("{} targets for {t} rounds", self.ys.len()))?;
        ensure(k <= crate::awv::outputs::MAX_OUTPUTS, || format!("{k} outputs"))?;
        len_is("z", self.z.len(), self.ys.len())?;
        finite("past inputs", &self.xs)?;
        finite("past targets", &self.ys)?;
        finite("factor", &self.chol)?;
        finite("z", &self.z)?;
        ensure((0..t).all(|i| self.chol[row_start(i) + i] > 0.0), || {
            "the Cholesky factor has a pivot <= 0".into()
        })?;
        ensure(!self.regret_term.is_nan(), || "the regret diagnostic is NaN".into())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same_fields!(self, fresh; kernel, lam, ridge, max_size)
    }
}

crate::state_params!(KernelAwv; kernel, lam, ridge, max_size);
