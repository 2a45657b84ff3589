//! The estimator's recursions (the module documentation): the row step
//! (Sherman-Morrison, eq. (19)/(22)), the column step (eq. (21)/(74) in block form), the
//! exact warm-up and the Schur-complement guard, on the stored design, Gram matrix and
//! `Phi`.

use super::{switch_on_index, ProjectionConfig};
use crate::bases::design::Scratch;
use crate::bases::{Design, LANES};
use crate::error::Result;
use crate::linalg::blas::{axpy, dot};
use crate::linalg::packed;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct State {
    pub(super) design: Design,
    pub(super) kappa: f64,
    pub(super) n: u64,
    /// Scheduled units switched on (the paper's N).
    pub(super) n_units: usize,
    /// Stored inputs (row-major) and targets: column additions need all past data.
    pub(super) xs: Vec<f64>,
    pub(super) ys: Vec<f64>,
    /// Packed `G = Psi^T Psi`.
    pub(super) gram: Vec<f64>,
    /// `r = Psi^T Y`.
    pub(super) r: Vec<f64>,
    /// Packed `Phi = G^-1` (meaningful only when `ready`).
    pub(super) phi: Vec<f64>,
    pub(super) theta: Vec<f64>,
    /// `Phi` exists (the warm-up is over).
    pub(super) ready: bool,
    /// Diagnostics: warm-up initialisations, refreshes, Schur-guard fallbacks.
    pub(super) n_inits: u64,
    pub(super) n_refresh: u64,
    pub(super) n_guard: u64,
    #[serde(skip)]
    pub(super) scratch: Scratch,
    #[serde(skip)]
    pub(super) u: Vec<f64>,
    #[serde(skip)]
    pub(super) v: Vec<f64>,
}

/// Relative eigenvalue cut-off of the warm-up's minimum-norm solution.
const MIN_NORM_CUTOFF: f64 = 1e-10;

/// Dense symmetric matrix from a packed upper triangle.
fn dense_of(a: &[f64], p: usize) -> DMatrix<f64> {
    DMatrix::from_fn(p, p, |i, j| packed::get(a, i, j))
}

/// Cholesky of `g` with relative pivot test `L_jj^2 > tol G_jj`; returns `G^-1` or `None`.
fn guarded_inverse(g: DMatrix<f64>, tol: f64) -> Option<DMatrix<f64>> {
    let diag: Vec<f64> = (0..g.nrows()).map(|i| g[(i, i)]).collect();
    let ch = g.cholesky()?;
    let l = ch.l_dirty();
    for (i, &gi) in diag.iter().enumerate() {
        let lii = l[(i, i)];
        // A NaN pivot compares as unordered and is refused too.
        if (lii * lii).partial_cmp(&(tol * gi)) != Some(std::cmp::Ordering::Greater)
            || !lii.is_finite()
        {
            return None;
        }
    }
    Some(ch.inverse())
}

impl State {
    pub(super) fn p(&self) -> usize {
        self.theta.len()
    }

    pub(super) fn ensure_scratch(&mut self) {
        let p = self.p();
        if self.u.len() != p {
            self.u = vec![0.0; p];
            self.v = vec![0.0; p];
        }
    }

    /// Tries to leave the warm-up (`Phi = G^-1`); otherwise sets the minimum-norm solution.
    fn try_init(&mut self, tol: f64) {
        let p = self.p();
        if p == 0 {
            self.ready = true;
            self.phi.clear();
            return;
        }
        if self.n == 0 {
            // No data: G = 0 and r = 0, so the minimum-norm solution is 0 (no eigen-solve).
            self.ready = false;
            self.phi.clear();
            self.theta = vec![0.0; p];
            return;
        }
        let g = dense_of(&self.gram, p);
        if self.n as usize >= p {
            if let Some(inv) = guarded_inverse(g.clone(), tol) {
                self.set_phi(&inv);
                self.ready = true;
                self.n_inits += 1;
                return;
            }
        }
        // Minimum-norm least squares: theta = G^+ r (= Psi^+ Y), eigenvalues below
        // 1e-10 * max eigenvalue (singular values below 1e-5 * max) treated as zero.
        self.ready = false;
        self.phi.clear();
        let eig = g.symmetric_eigen();
        let lmax = eig.eigenvalues.iter().cloned().fold(0.0f64, f64::max);
        let mut theta = vec![0.0; p];
        if lmax > 0.0 {
            for k in 0..p {
                let lk = eig.eigenvalues[k];
                if lk > MIN_NORM_CUTOFF * lmax {
                    let vk = eig.eigenvectors.column(k);
                    let coef = (0..p).map(|i| vk[i] * self.r[i]).sum::<f64>() / lk;
                    for i in 0..p {
                        theta[i] += coef * vk[i];
                    }
                }
            }
        }
        self.theta = theta;
    }

    /// `Phi = inv` (symmetrised into the packed triangle) and `theta = Phi r`.
    fn set_phi(&mut self, inv: &DMatrix<f64>) {
        let p = self.p();
        self.phi = vec![0.0; packed::packed_len(p)];
        for j in 0..p {
            for i in 0..=j {
                self.phi[j * (j + 1) / 2 + i] = 0.5 * (inv[(i, j)] + inv[(j, i)]);
            }
        }
        let mut th = vec![0.0; p];
        packed::symv(&self.phi, &self.r, &mut th);
        self.theta = th;
    }

    /// Row step for the sample `(x, y)` whose features are in `self.u`.
    pub(super) fn add_row(&mut self, x: &[f64], y: f64, tol: f64) {
        self.n += 1;
        self.xs.extend_from_slice(x);
        self.ys.push(y);
        let p = self.p();
        let u = &self.u[..p];
        axpy(y, u, &mut self.r);
        packed::syr(&mut self.gram, -1.0, u);
        if self.ready {
            // Sherman-Morrison, eq. (19); theta by eq. (22): theta_n = theta_{n-1} + Phi_n psi_n (Y_n - f_{n-1}(X_n)).
            let v = &mut self.v[..p];
            packed::symv(&self.phi, u, v);
            let s = 1.0 + dot(u, v);
            let e = y - dot(u, &self.theta);
            packed::syr(&mut self.phi, 1.0 / s, v);
            axpy(e / s, v, &mut self.theta);
        } else {
            self.try_init(tol);
        }
    }

    /// Will this round's `add_scheduled` switch on a unit?
    pub(super) fn unit_due(&self, cfg: &ProjectionConfig) -> bool {
        switch_on_index(cfg.c, self.kappa, self.n_units + 1) <= self.n as f64
    }

    /// Algorithm 2's column step as a `while` loop (docs/choices.md, "Trigger"): switches on
    /// every unit with `t_N <= n`.
    /// Honours Ctrl-C between units (the caller restores its snapshot).
    pub(super) fn add_scheduled(&mut self, cfg: &ProjectionConfig) -> Result<()> {
        while self.unit_due(cfg) {
            crate::interrupt::poll()?;
            let more = switch_on_index(cfg.c, self.kappa, self.n_units + 2) <= self.n as f64;
            self.add_unit(cfg, more);
            self.n_units += 1;
        }
        Ok(())
    }

    /// Column step: eq. (21) / (74) in block form for the q columns of the next unit.
    /// `more`: another unit follows in this round (a warm-up solve that the next unit's
    /// solve would overwrite is skipped).
    fn add_unit(&mut self, cfg: &ProjectionConfig, more: bool) {
        let p0 = self.p();
        let q = self.design.push_unit();
        let p1 = p0 + q;
        let d = self.design.input_dim();
        // B = Psi^T W (q vectors of length p0), C = W^T W, ry = W^T Y over all stored samples.
        // Per-lane accumulators (vertical FMAs only), reduced after the pass.
        const L: usize = LANES;
        let mut bacc = vec![[0.0f64; L]; p0 * q];
        let mut cacc = vec![[0.0f64; L]; q * q];
        let mut racc = vec![[0.0f64; L]; q];
        let mut block = vec![0.0; p1 * L];
        for (xb, yb) in self.xs.chunks(d * L).zip(self.ys.chunks(L)) {
            let nb = yb.len();
            self.design.eval_block(xb, &mut self.scratch, &mut block);
            let mut yl = [0.0f64; L];
            yl[..nb].copy_from_slice(yb);
            // zero the unused lanes of the new columns: their products then vanish
            for k in 0..q {
                block[(p0 + k) * L + nb..(p0 + k + 1) * L].iter_mut().for_each(|v| *v = 0.0);
            }
            let (old, new) = block.split_at(p0 * L);
            for k in 0..q {
                let mut wk = [0.0f64; L];
                wk.copy_from_slice(&new[k * L..(k + 1) * L]);
                for (j, acc) in bacc[k * p0..(k + 1) * p0].iter_mut().enumerate() {
                    let col = &old[j * L..(j + 1) * L];
                    for r in 0..L {
                        acc[r] += col[r] * wk[r];
                    }
                }
                for r in 0..L {
                    racc[k][r] += yl[r] * wk[r];
                }
                for l in 0..=k {
                    let col = &new[l * L..(l + 1) * L];
                    for r in 0..L {
                        cacc[l * q + k][r] += col[r] * wk[r];
                    }
                }
            }
        }
        let lane_sum = |a: &[f64; L]| a.iter().sum::<f64>();
        let bcols: Vec<Vec<f64>> =
            (0..q).map(|k| bacc[k * p0..(k + 1) * p0].iter().map(lane_sum).collect()).collect();
        let ry: Vec<f64> = racc.iter().map(lane_sum).collect();
        let mut cmat = DMatrix::<f64>::zeros(q, q);
        for k in 0..q {
            for l in 0..=k {
                cmat[(l, k)] = lane_sum(&cacc[l * q + k]);
            }
        }
        for k in 0..q {
            for l in 0..k {
                cmat[(k, l)] = cmat[(l, k)];
            }
        }
        // Border G and r.
        for k in 0..q {
            self.gram.extend_from_slice(&bcols[k]);
            for l in 0..=k {
                self.gram.push(cmat[(l, k)]);
            }
        }
        self.r.extend_from_slice(&ry);
        if !self.ready || self.n == 0 {
            self.theta.resize(p1, 0.0);
            // With more columns than samples the solve cannot leave the warm-up, and the
            // next unit's solve replaces its theta: only the last one of the round runs.
            if !(more && !self.ready && p1 > self.n as usize) {
                self.try_init(cfg.tol);
            }
            return;
        }
        // Q = Phi B, S = C - B^T Q.
        let mut qcols = vec![vec![0.0; p0]; q];
        for k in 0..q {
            packed::symv(&self.phi, &bcols[k], &mut qcols[k]);
        }
        let s = DMatrix::from_fn(q, q, |i, j| cmat[(i, j)] - dot(&bcols[i], &qcols[j]));
        let s = (&s + s.transpose()) * 0.5;
        let sinv = match guarded_inverse(s, cfg.tol) {
            Some(m) => m,
            None => {
                // Schur guard: fall back to the exact warm-up.
                self.n_guard += 1;
                self.theta.resize(p1, 0.0);
                self.ready = false;
                self.try_init(cfg.tol);
                return;
            }
        };
        // z = W^T Y - B^T theta (= W^T Delta_n), beta = S^-1 z.
        let z: Vec<f64> = (0..q).map(|k| ry[k] - dot(&bcols[k], &self.theta)).collect();
        let beta: Vec<f64> = (0..q).map(|i| (0..q).map(|j| sinv[(i, j)] * z[j]).sum()).collect();
        // M = Q S^-1 (p0 x q).
        let mcols: Vec<Vec<f64>> = (0..q)
            .map(|j| {
                let mut m = vec![0.0; p0];
                for k in 0..q {
                    axpy(sinv[(k, j)], &qcols[k], &mut m);
                }
                m
            })
            .collect();
        // Phi top-left += Q S^-1 Q^T = sum_k M_k Q_k^T (symmetric), eq. (21).
        for jj in 0..p0 {
            let start = jj * (jj + 1) / 2;
            for k in 0..q {
                let a = qcols[k][jj];
                axpy(a, &mcols[k][..=jj], &mut self.phi[start..=start + jj]);
            }
        }
        // New columns: [-M ; S^-1].
        for k in 0..q {
            self.phi.extend(mcols[k].iter().map(|v| -v));
            for l in 0..=k {
                self.phi.push(0.5 * (sinv[(l, k)] + sinv[(k, l)]));
            }
        }
        // theta <- [theta - Q beta ; beta], eq. (74).
        for k in 0..q {
            axpy(-beta[k], &qcols[k], &mut self.theta);
        }
        self.theta.extend_from_slice(&beta);
        if cfg.refresh {
            match guarded_inverse(dense_of(&self.gram, p1), cfg.tol) {
                Some(inv) => {
                    self.set_phi(&inv);
                    self.n_refresh += 1;
                }
                None => {
                    self.n_guard += 1;
                    self.ready = false;
                    self.try_init(cfg.tol);
                }
            }
        }
    }
}
