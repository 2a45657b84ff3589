//! Work that several experts of a [`super::Mixture`] would each repeat on the same
//! rows, done once per block.
//!
//! NystromAWV experts on the same fixed dictionary with the Gaussian kernel (an
//! [`super::AutoKernel`]'s, which differ in width and ridge only) need the kernel rows
//! `k_D(x)_j = exp(-||x - c_j||^2 / (2 sigma^2))` of every row: the squared distances
//! are computed once for all of them, several centres at a time (each centre's sum
//! still runs over the coordinates in order: the bits of
//! [`crate::kernels::Kernel::eval`]), and the exponentials once per distinct width.
//! Each expert then runs its block on the given rows
//! ([`crate::learners::NystromAwv::predict_learn_many_krows`]): the results are those of the experts
//! alone, bit for bit.

use super::AnyLearner;
use crate::error::Result;
use crate::learners::OnlineLearner;

/// Most doubles of kernel rows held for one block (above: no sharing).
const MAX_SHARED_DOUBLES: usize = 1 << 20;

/// The shared kernel rows of one block: `krows[g]` (row-major `n x m`) for width
/// group `g`; `group[j]` is expert `j`'s group.
pub struct Shared {
    group: Vec<Option<usize>>,
    krows: Vec<Vec<f64>>,
}

impl Shared {
    /// The shared work of the block `x` (`n` rows of length `d`), or `None` when
    /// fewer than two experts would share it.
    pub fn prepare(experts: &[AnyLearner], x: &[f64], d: usize) -> Option<Shared> {
        let n = x.len().checked_div(d)?;
        let mut dict: Option<&[f64]> = None;
        let mut sigmas: Vec<f64> = Vec::new();
        let mut group = vec![None; experts.len()];
        for (j, e) in experts.iter().enumerate() {
            let AnyLearner::NystromAwv(l) = e else { continue };
            // A round a kept prediction finishes needs no kernel row.
            if l.has_kept(x) {
                continue;
            }
            let Some((c, sigma)) = l.fixed_gaussian(d) else { continue };
            match dict {
                None => dict = Some(c),
                Some(c0) if same_bits(c0, c) => {}
                Some(_) => continue,
            }
            let g = match sigmas.iter().position(|s| s.to_bits() == sigma.to_bits()) {
                Some(g) => g,
                None => {
                    sigmas.push(sigma);
                    sigmas.len() - 1
                }
            };
            group[j] = Some(g);
        }
        let dict = dict?;
        let m = dict.len() / d;
        let sharing = group.iter().flatten().count();
        if sharing < 2 || n * m * (sigmas.len() + 1) > MAX_SHARED_DOUBLES {
            return None;
        }
        let sq = sq_distances(x, dict, d);
        let krows = sigmas
            .iter()
            .map(|&sigma| sq.iter().map(|&s| (-s / (2.0 * sigma * sigma)).exp()).collect())
            .collect();
        Some(Shared { group, krows })
    }

    /// Expert `j`'s block: on the shared kernel rows when it has them, else alone.
    pub fn run(
        shared: Option<&Shared>,
        j: usize,
        e: &mut AnyLearner,
        x: &[f64],
        d: usize,
        y: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        if let (Some(s), AnyLearner::NystromAwv(l)) = (shared, &mut *e) {
            if let Some(g) = s.group[j] {
                if let Some(res) = l.predict_learn_many_krows(x, d, y, &s.krows[g], out) {
                    return res;
                }
            }
        }
        e.predict_learn_many(x, d, y, out)
    }
}

/// [`OnlineLearner::predict_keep`] of expert `j` on the single row `x` of the block
/// `shared` was prepared for.
pub fn keep(shared: Option<&Shared>, j: usize, e: &mut AnyLearner, x: &[f64]) -> Result<f64> {
    if let (Some(s), AnyLearner::NystromAwv(l)) = (shared, &mut *e) {
        if let Some(g) = s.group[j] {
            if let Some(res) = l.predict_keep_krow(x, &s.krows[g]) {
                return res;
            }
        }
    }
    e.predict_keep(x)
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(u, v)| u.to_bits() == v.to_bits())
}

/// `||x_i - c_j||^2` (row-major `n x m`) for the rows of `x` and of `c` (both of
/// length `d`), each a sum over the coordinates in order.
fn sq_distances(x: &[f64], c: &[f64], d: usize) -> Vec<f64> {
    let m = c.len() / d;
    // The centres by coordinate (`ct[f m + j] = c_jf`): the inner loop runs over centres.
    let mut ct = vec![0.0; m * d];
    for (j, row) in c.chunks_exact(d).enumerate() {
        for (f, &v) in row.iter().enumerate() {
            ct[f * m + j] = v;
        }
    }
    let mut sq = vec![0.0; (x.len() / d) * m];
    for (xi, si) in x.chunks_exact(d).zip(sq.chunks_exact_mut(m)) {
        for (f, &a) in xi.iter().enumerate() {
            for (acc, &b) in si.iter_mut().zip(&ct[f * m..(f + 1) * m]) {
                let t = a - b;
                *acc += t * t;
            }
        }
    }
    sq
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Kernel;

    #[test]
    fn kernel_rows_have_the_bits_of_the_kernel() {
        let mut rng = crate::rng::Rng::new(3);
        let (n, m, d) = (9, 13, 5);
        let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
        let c: Vec<f64> = (0..m * d).map(|_| rng.normal()).collect();
        let sq = sq_distances(&x, &c, d);
        for sigma in [0.3, 1.7] {
            let k = Kernel::Gaussian { sigma };
            for i in 0..n {
                let mut row = vec![0.0; m];
                k.row_into(&x[i * d..(i + 1) * d], &c, d, &mut row);
                for j in 0..m {
                    let v = (-sq[i * m + j] / (2.0 * sigma * sigma)).exp();
                    assert_eq!(v.to_bits(), row[j].to_bits());
                }
            }
        }
    }
}
