//! Work that several experts of a [`super::Mixture`] would each repeat on the same
//! rows, done once per block.
//!
//! NystromAWV experts on the same fixed dictionary with the Gaussian kernel (an
//! [`super::AutoKernel`]'s, which differ in width and ridge only) need the kernel rows
//! `k_D(x)_j = exp(-||x - c_j||^2 / (2 sigma^2))` of every row: the squared distances
//! are computed once for all of them, several centres at a time (each centre's sum
//! still runs over the coordinates in order: the bits of
//! [`crate::kernels::Kernel::eval`]), and the exponentials once per distinct width.
//! Those with the Laplacian kernel `exp(-||x - c_j||_1 / sigma)` share their L1
//! distances the same way. Each expert then runs its block on the given rows
//! ([`crate::learners::NystromAwv::predict_learn_many_krows`]): the results are those of the experts
//! alone, bit for bit.

use super::AnyLearner;
use crate::error::Result;
use crate::kernels::Kernel;
use crate::learners::batch::Rows;
use crate::learners::OnlineLearner;
use crate::multi::MultiOutput;

/// Most doubles of kernel rows held for one block (above: no sharing).
const MAX_SHARED_DOUBLES: usize = 1 << 20;

/// The shared kernel rows of one block: `krows[g]` (row-major `n x m`) for width
/// group `g`; `group[j]` is expert `j`'s group.
pub struct Shared {
    group: Vec<Option<usize>>,
    krows: Vec<Vec<f64>>,
}

/// The experts of one distance (squared Euclidean for the Gaussian kernel, L1 for the
/// Laplacian) on one dictionary: their distinct widths, and each one's width.
struct Family<'a> {
    dict: &'a [f64],
    sigmas: Vec<f64>,
    members: Vec<(usize, usize)>,
}

impl Shared {
    /// The shared work of the block `x` (`n` rows of length `d`), or `None` when
    /// fewer than two experts of one distance would share it.
    pub fn prepare(experts: &[AnyLearner], x: &[f64], d: usize) -> Option<Shared> {
        let n = x.len().checked_div(d)?;
        // [Gaussian, Laplacian]
        let mut fams: [Option<Family<'_>>; 2] = [None, None];
        for (j, e) in experts.iter().enumerate() {
            let AnyLearner::NystromAwv(l) = e else { continue };
            // A round a kept prediction finishes needs no kernel row.
            if l.has_kept(x) {
                continue;
            }
            let (f, c, sigma) = match l.fixed_distance_kernel(d) {
                Some((c, Kernel::Gaussian { sigma })) => (0, c, sigma),
                Some((c, Kernel::Laplacian { sigma })) => (1, c, sigma),
                _ => continue,
            };
            let fam = fams[f].get_or_insert_with(|| Family {
                dict: c,
                sigmas: Vec::new(),
                members: Vec::new(),
            });
            if !same_bits(fam.dict, c) {
                continue;
            }
            let g = match fam.sigmas.iter().position(|s| s.to_bits() == sigma.to_bits()) {
                Some(g) => g,
                None => {
                    fam.sigmas.push(sigma);
                    fam.sigmas.len() - 1
                }
            };
            fam.members.push((j, g));
        }
        let mut shared = Shared { group: vec![None; experts.len()], krows: Vec::new() };
        for (f, fam) in fams.iter().enumerate() {
            let Some(fam) = fam else { continue };
            let m = fam.dict.len() / d;
            if fam.members.len() < 2 || n * m * (fam.sigmas.len() + 1) > MAX_SHARED_DOUBLES {
                continue;
            }
            let base = shared.krows.len();
            if f == 0 {
                let sq = distances(x, fam.dict, d, |t| t * t);
                shared.krows.extend(fam.sigmas.iter().map(|&sigma| {
                    sq.iter().map(|&s| (-s / (2.0 * sigma * sigma)).exp()).collect()
                }));
            } else {
                let l1 = distances(x, fam.dict, d, f64::abs);
                shared.krows.extend(
                    fam.sigmas
                        .iter()
                        .map(|&sigma| l1.iter().map(|&s| (-s / sigma).exp()).collect()),
                );
            }
            for &(j, g) in &fam.members {
                shared.group[j] = Some(base + g);
            }
        }
        if shared.krows.is_empty() {
            return None;
        }
        Some(shared)
    }

    /// Expert `j`'s block: on the shared kernel rows when it has them, else alone
    /// (`multi`: rows of the multi-output protocol, `y` row-major `n x K`).
    pub fn run(
        shared: Option<&Shared>,
        j: usize,
        e: &mut AnyLearner,
        rows: Rows<'_>,
        multi: bool,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        let Rows { x, d, y } = rows;
        if let (Some(s), AnyLearner::NystromAwv(l)) = (shared, &mut *e) {
            if let Some(g) = s.group[j] {
                if let Some(res) = l.predict_learn_many_krows(x, d, y, &s.krows[g], out) {
                    return res;
                }
            }
        }
        match multi {
            true => e.predict_learn_many_multi(rows, out),
            false => e.predict_learn_many(x, d, y, out),
        }
    }
}

/// [`OnlineLearner::predict_keep`] of expert `j` on the single row `x` of the block
/// `shared` was prepared for.
pub fn keep(shared: Option<&Shared>, j: usize, e: &mut AnyLearner, x: &[f64]) -> Result<f64> {
    let mut p = [0.0];
    match keep_krow(shared, j, e, x, &mut p) {
        Some(res) => res.map(|()| p[0]),
        None => e.predict_keep(x),
    }
}

/// [`MultiOutput::predict_keep_multi`] of expert `j` (its `k` predictions pushed onto
/// `z`) on the single row `x` of the block `shared` was prepared for.
pub fn keep_multi(
    shared: Option<&Shared>,
    j: usize,
    e: &mut AnyLearner,
    x: &[f64],
    k: usize,
    z: &mut Vec<f64>,
) -> Result<()> {
    let start = z.len();
    z.resize(start + k, 0.0);
    let res = keep_krow(shared, j, e, x, &mut z[start..]);
    if !matches!(res, Some(Ok(()))) {
        z.truncate(start);
    }
    match res {
        Some(res) => res,
        None => e.predict_keep_multi(x, z),
    }
}

/// Expert `j`'s kept predictions of `x` from its shared kernel row into `out`; `None`
/// (nothing done) when it has none.
fn keep_krow(
    shared: Option<&Shared>,
    j: usize,
    e: &mut AnyLearner,
    x: &[f64],
    out: &mut [f64],
) -> Option<Result<()>> {
    let (Some(s), AnyLearner::NystromAwv(l)) = (shared, &mut *e) else { return None };
    l.predict_keep_krow(x, &s.krows[s.group[j]?], out)
}

/// Whether `a` and `b` hold the same bits: the same slice, or equal by blocks of 8
/// compared without an early exit inside a block (which vectorises; a served round
/// compares the dictionaries once a row).
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if std::ptr::eq(a.as_ptr(), b.as_ptr()) {
        return true;
    }
    a.chunks(8).zip(b.chunks(8)).all(|(x, y)| {
        x.iter().zip(y).fold(true, |same, (u, v)| same & (u.to_bits() == v.to_bits()))
    })
}

/// `sum_f g(x_if - c_jf)` (row-major `n x m`) for the rows of `x` and of `c` (both of
/// length `d`), each a sum over the coordinates in order (`g(t) = t^2`: squared
/// distances; `g = abs`: L1 distances).
fn distances(x: &[f64], c: &[f64], d: usize, g: impl Fn(f64) -> f64) -> Vec<f64> {
    let m = c.len() / d;
    if x.len() == d {
        // One row (a served round): each centre's sum in the same order, from the
        // row-major centres (the transposed copy would cost as much as the sums).
        return c
            .chunks_exact(d)
            .map(|cj| x.iter().zip(cj).fold(0.0, |s, (&a, &b)| s + g(a - b)))
            .collect();
    }
    // The centres by coordinate (`ct[f m + j] = c_jf`): the inner loop runs over centres.
    let mut ct = vec![0.0; m * d];
    for (j, row) in c.chunks_exact(d).enumerate() {
        for (f, &v) in row.iter().enumerate() {
            ct[f * m + j] = v;
        }
    }
    let mut out = vec![0.0; (x.len() / d) * m];
    for (xi, si) in x.chunks_exact(d).zip(out.chunks_exact_mut(m)) {
        for (f, &a) in xi.iter().enumerate() {
            for (acc, &b) in si.iter_mut().zip(&ct[f * m..(f + 1) * m]) {
                *acc += g(a - b);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bits_compares_every_value() {
        let a: Vec<f64> = (0..21).map(|i| i as f64 * 0.5).collect();
        assert!(same_bits(&a, &a.clone()));
        assert!(same_bits(&a, &a));
        for i in [0, 7, 8, 20] {
            let mut b = a.clone();
            b[i] = -b[i] - 1.0;
            assert!(!same_bits(&a, &b));
        }
        let mut z = a.clone();
        z[0] = -0.0; // 0.0 and -0.0 differ in bits
        assert!(!same_bits(&a, &z));
        assert!(!same_bits(&a, &a[..20]));
    }

    #[test]
    fn kernel_rows_have_the_bits_of_the_kernel() {
        let mut rng = crate::rng::Rng::new(3);
        let (n, m, d) = (9, 13, 5);
        let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
        let c: Vec<f64> = (0..m * d).map(|_| rng.normal()).collect();
        let sq = distances(&x, &c, d, |t| t * t);
        let l1 = distances(&x, &c, d, f64::abs);
        // One row (the served round's direct sums) gives the bits of a block's rows.
        for i in 0..n {
            let row = &x[i * d..(i + 1) * d];
            let bits = |v: &[f64]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&distances(row, &c, d, |t| t * t)), bits(&sq[i * m..(i + 1) * m]));
            assert_eq!(bits(&distances(row, &c, d, f64::abs)), bits(&l1[i * m..(i + 1) * m]));
        }
        for sigma in [0.3, 1.7] {
            for (k, dist) in [(Kernel::Gaussian { sigma }, &sq), (Kernel::Laplacian { sigma }, &l1)]
            {
                for i in 0..n {
                    let mut row = vec![0.0; m];
                    k.row_into(&x[i * d..(i + 1) * d], &c, d, &mut row);
                    for j in 0..m {
                        let s = dist[i * m + j];
                        let v = match k {
                            Kernel::Gaussian { .. } => (-s / (2.0 * sigma * sigma)).exp(),
                            _ => (-s / sigma).exp(),
                        };
                        assert_eq!(v.to_bits(), row[j].to_bits());
                    }
                }
            }
        }
    }
}
