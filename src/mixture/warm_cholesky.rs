//! The Cholesky factor of the warm-up's `K + lam I` ([`super::warm_krr`]), entry by entry
//! the numbers of nalgebra's `Cholesky::new` (left-looking: column `j` receives
//! `- L_jk L_.k` for `k = 0, 1, ..., j - 1` in order, one multiplication and one
//! addition each, then `L_jj = sqrt`, the rest of the column divided by it), computed
//! in tiles of 8 rows x 4 columns so that each `L_.k` read serves four columns. The
//! tile kernel is compiled per instruction set ([`crate::simd`]) without fused
//! multiply-adds (`a * b + c` rounds twice on every path), so every path gives the
//! bits of the untiled loop.

/// Columns per panel (and per tile).
const NB: usize = 4;
/// Rows per tile.
const MR: usize = 8;

crate::dispatch! {
    #[allow(dead_code)] // `factor` runs the selected path through `panel_update_on`.
    /// Subtracts from columns `j0..j0 + NB` of `a` (column-major `n x n`), rows
    /// `j0..n`, the products `L_jk L_ik` of the finished columns `k < j0`, in `k` order.
    fn panel_update(a: &mut [f64], n: usize, j0: usize) => panel_update_impl, panel_update_on;
}

// The path only chooses the instruction set the loop is compiled for (no `mul_add`).
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn panel_update_impl<I: crate::simd::Isa>(a: &mut [f64], n: usize, j0: usize) {
    let mut i0 = j0;
    while i0 < n {
        let mr = MR.min(n - i0);
        // A full tile passes the constant `MR` (its row loop is unrolled), the last
        // short one its row count.
        if mr == MR {
            tile_update(a, n, j0, i0, MR);
        } else {
            tile_update(a, n, j0, i0, mr);
        }
        i0 += mr;
    }
}

/// The tile of rows `i0..i0 + mr` (`mr <= MR`) of columns `j0..j0 + NB`: subtracts
/// `L_jk L_ik` for `k = 0, 1, ..., j0 - 1` in order.
#[inline(always)]
fn tile_update(a: &mut [f64], n: usize, j0: usize, i0: usize, mr: usize) {
    let mut acc = [[0.0f64; MR]; NB];
    for (c, acc_c) in acc.iter_mut().enumerate() {
        acc_c[..mr].copy_from_slice(&a[(j0 + c) * n + i0..(j0 + c) * n + i0 + mr]);
    }
    for k in 0..j0 {
        let col = &a[k * n + i0..k * n + i0 + mr];
        for (c, acc_c) in acc.iter_mut().enumerate() {
            let f = -a[k * n + j0 + c];
            for r in 0..mr {
                acc_c[r] += f * col[r];
            }
        }
    }
    for (c, acc_c) in acc.iter().enumerate() {
        a[(j0 + c) * n + i0..(j0 + c) * n + i0 + mr].copy_from_slice(&acc_c[..mr]);
    }
}

/// Factors `a` (column-major `n x n`, lower triangle read) in place into its lower
/// Cholesky factor (the strict upper triangle is left with scratch values); `false`
/// when a pivot is zero, negative or not a number (nalgebra's `None`).
pub fn factor(a: &mut [f64], n: usize) -> bool {
    factor_on(crate::simd::selected(), a, n)
}

/// [`factor`] with the tile kernel of instruction-set path `path`.
fn factor_on(path: crate::simd::Path, a: &mut [f64], n: usize) -> bool {
    let mut j0 = 0;
    while j0 < n {
        let nb = NB.min(n - j0);
        if nb == NB {
            panel_update_on(path, a, n, j0);
        } else {
            // The last narrow panel: the same updates, column by column.
            for j in j0..n {
                for k in 0..j0 {
                    let f = -a[k * n + j];
                    for i in j..n {
                        a[j * n + i] += f * a[k * n + i];
                    }
                }
            }
        }
        for j in j0..j0 + nb {
            for k in j0..j {
                let f = -a[k * n + j];
                for i in j..n {
                    a[j * n + i] += f * a[k * n + i];
                }
            }
            let diag = a[j * n + j];
            // Zero, negative or NaN: no square root (nalgebra's `None`).
            if diag.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return false;
            }
            let den = diag.sqrt();
            a[j * n + j] = den;
            for v in &mut a[j * n + j + 1..(j + 1) * n] {
                *v /= den;
            }
        }
        j0 += nb;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn the_bits_of_nalgebra_on_every_path() {
        let mut rng = crate::rng::Rng::new(11);
        for n in [1, 3, 4, 5, 8, 13, 37, 64, 101] {
            let b = DMatrix::from_fn(n, n + 3, |_, _| rng.normal());
            let spd = &b * b.transpose() + DMatrix::identity(n, n) * 0.1;
            let want = spd.clone().cholesky().unwrap().unpack();
            for path in crate::simd::Path::ALL {
                let mut a: Vec<f64> = spd.as_slice().to_vec();
                assert!(factor_on(path, &mut a, n));
                for j in 0..n {
                    for i in j..n {
                        let (got, w) = (a[j * n + i], want[(i, j)]);
                        assert_eq!(got.to_bits(), w.to_bits(), "{path:?} n={n} ({i},{j})");
                    }
                }
            }
        }
    }

    #[test]
    fn a_matrix_that_is_not_positive_definite_fails_as_nalgebra() {
        let m = DMatrix::from_row_slice(
            5,
            5,
            &[
                1.0, 2.0, 0.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
                0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ],
        );
        assert!(m.clone().cholesky().is_none());
        let mut a: Vec<f64> = m.as_slice().to_vec();
        assert!(!factor(&mut a, 5));
    }
}
