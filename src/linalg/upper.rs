//! Symmetric matrices stored as the upper triangle in column panels: the
//! columns `[j0, j1)` of panel `J` (`j0 = J PANEL`, `j1 = min(j0 + PANEL, r)`)
//! keep their rows `0..j1` as a column-major `j1 x (j1 - j0)` block with leading
//! dimension `j1`, panels one after the other. Column `j` holds rows `0..=j`
//! (the triangle, contiguous, as in packed storage) and, below them, rows up to
//! `j1` of the panel's diagonal block (scratch, never read as data). So per-round
//! kernels read the triangle once like packed storage (`r (r + 1) / 2 + O(r PANEL)`
//! doubles), and matrix-matrix products ([`super::gemm`]) see each panel as a
//! strided matrix.
//! The kernels are compiled per instruction-set path and chosen at run time ([`crate::simd`]).

use super::gemm::{gemm, View};
use super::triangle;
use crate::simd::Lanes;

/// Column panel width of the storage and of the blocked products.
pub const PANEL: usize = 128;

/// Offset of panel `J`'s block: every earlier panel `K` is full, `PANEL x (K + 1) PANEL`.
#[inline]
fn panel_off(jp: usize) -> usize {
    PANEL * PANEL * jp * (jp + 1) / 2
}

/// Offset of column `j` (row 0) and the leading dimension of its panel.
#[inline]
pub fn col_off(r: usize, j: usize) -> (usize, usize) {
    let jp = j / PANEL;
    let j0 = jp * PANEL;
    let ld = (j0 + PANEL).min(r);
    (panel_off(jp) + (j - j0) * ld, ld)
}

/// Doubles stored for order `r`, without overflow.
pub fn stored_len(r: usize) -> u128 {
    let (r, p) = (r as u128, PANEL as u128);
    let full = r / p;
    p * p * full * (full + 1) / 2 + (r - full * p) * r
}

/// Every column `j` in order with its offset `(j, off)`. An iterator, not a
/// closure, so that kernel bodies stay inside the `#[target_feature]` functions
/// of [`crate::dispatch!`] (a closure would not inherit the features).
#[derive(Clone, Copy)]
struct Cols {
    r: usize,
    j: usize,
    j0: usize,
    ld: usize,
    base: usize,
}

#[inline(always)]
fn cols(r: usize) -> Cols {
    Cols { r, j: 0, j0: 0, ld: PANEL.min(r), base: 0 }
}

impl Iterator for Cols {
    type Item = (usize, usize);
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.j >= self.r {
            return None;
        }
        if self.j == self.ld {
            self.base += (self.ld - self.j0) * self.ld;
            self.j0 = self.ld;
            self.ld = (self.j0 + PANEL).min(self.r);
        }
        let out = (self.j, self.base + (self.j - self.j0) * self.ld);
        self.j += 1;
        Some(out)
    }
}

/// Calls `f(j, off)` for every column `j` in order (outside the kernels).
fn for_cols(r: usize, mut f: impl FnMut(usize, usize)) {
    for (j, s) in cols(r) {
        f(j, s);
    }
}

/// `scale * I_r` in panel storage.
pub fn scaled_identity(r: usize, scale: f64) -> Vec<f64> {
    let mut a = vec![0.0; stored_len(r) as usize];
    for_cols(r, |j, s| a[s + j] = scale);
    a
}

/// Entry `(i, j)` from the upper triangle.
#[inline]
pub fn get(a: &[f64], r: usize, i: usize, j: usize) -> f64 {
    let (i, j) = if i <= j { (i, j) } else { (j, i) };
    a[col_off(r, j).0 + i]
}

crate::dispatch! {
    /// `h = A v` for the symmetric `A` (order `r = v.len()`), one pass over the
    /// triangle ([`triangle::symv`]).
    pub fn symv(a: &[f64], v: &[f64], h: &mut [f64]) => symv_impl, symv_on;
}

crate::dispatch! {
    /// `A -= c h h^T` on the upper triangle (a symmetric rank-one update).
    pub fn syr(a: &mut [f64], c: f64, h: &[f64]) => syr_impl, syr_on;
}

crate::dispatch! {
    /// One pass doing [`syr`]`(a, c, hp)` then [`symv`]`(a, v, h)`, bit for bit:
    /// each column is updated, then used for the product while it is in cache.
    pub fn syr_symv(a: &mut [f64], c: f64, hp: &[f64], v: &[f64], h: &mut [f64]) => syr_symv_impl, syr_symv_on;
}

crate::dispatch! {
    /// `h = (A - c hp hp^T) v` without writing `A`: bit for bit the product
    /// [`syr_symv`] would give (`scratch`: a few columns).
    pub fn syr_symv_peek(a: &[f64], c: f64, hp: &[f64], v: &[f64], h: &mut [f64], scratch: &mut Vec<f64>) => syr_symv_peek_impl, syr_symv_peek_on;
}

crate::dispatch! {
    /// The discount step of a discounted AWV round then its mat-vec, in one pass:
    /// `A <- A - c hp hp^T` (`pending = (c, hp)`, [`syr`]; none if `c = 0`), then
    /// `A <- (A - q g g^T) / gamma` with `g` column `k` of that matrix (written into
    /// `g`) and `q = cg / (1 + cg g_k)` ([`Discount`]), then `h = A v`. Bit for bit [`syr`], the
    /// discount loop of `crate::awv::LinearAwv` and [`symv`] one after the other.
    pub fn syr_discount_symv(a: &mut [f64], pending: (f64, &[f64]), step: Discount, g: &mut [f64], v: &[f64], h: &mut [f64]) => syr_discount_symv_impl, syr_discount_symv_on;
}

/// The discount step of [`syr_discount_symv`]: refilled coordinate `k`, refill over
/// `gamma` `cg`, forgetting factor `gamma`.
#[derive(Clone, Copy, Debug)]
pub struct Discount {
    pub k: usize,
    pub cg: f64,
    pub gamma: f64,
}

#[inline(always)]
fn syr_discount_symv_impl<I: Lanes>(
    a: &mut [f64],
    (c, hp): (f64, &[f64]),
    step: Discount,
    g: &mut [f64],
    v: &[f64],
    h: &mut [f64],
) {
    let Discount { k, cg, gamma } = step;
    let r = v.len();
    assert!(a.len() as u128 >= stored_len(r) && hp.len() >= r && g.len() >= r && k < r);
    // Column k after the pending update: entry (i, j), i <= j, is
    // fma(-c hp_j, hp_i, A_ij) as triangle::syr_col computes it.
    for (i, gi) in g[..r].iter_mut().enumerate() {
        let (row, col) = if i <= k { (i, k) } else { (k, i) };
        let aij = a[col_off(r, col).0 + row];
        *gi = if c != 0.0 { I::mul_add(-c * hp[col], hp[row], aij) } else { aij };
    }
    let q = cg / (1.0 + cg * g[k]);
    let ig = 1.0 / gamma;
    let g = &*g;
    let upd = |j: usize, col: &mut [f64]| {
        if c != 0.0 {
            let alpha = -c * hp[j];
            col.iter_mut().zip(&hp[..=j]).for_each(|(e, x)| *e = I::mul_add(alpha, *x, *e));
        }
        let qj = q * g[j];
        col.iter_mut().zip(&g[..=j]).for_each(|(e, x)| *e = (*e - qj * x) * ig);
    };
    triangle::update_symv::<I, _>(Panels(r), a, upd, v, h);
}

/// Panel storage as a [`triangle::Layout`] (order `r`).
#[derive(Clone, Copy)]
struct Panels(usize);

impl triangle::Layout for Panels {
    #[inline(always)]
    fn off(self, j: usize) -> usize {
        col_off(self.0, j).0
    }
}

#[inline(always)]
fn symv_impl<I: Lanes>(a: &[f64], v: &[f64], h: &mut [f64]) {
    let r = v.len();
    assert!(a.len() as u128 >= stored_len(r) && h.len() >= r);
    triangle::symv::<I, _>(Panels(r), a, v, h);
}

#[inline(always)]
fn syr_impl<I: Lanes>(a: &mut [f64], c: f64, h: &[f64]) {
    let r = h.len();
    assert!(a.len() as u128 >= stored_len(r));
    triangle::syr::<I, _>(Panels(r), a, c, h);
}

#[inline(always)]
fn syr_symv_impl<I: Lanes>(a: &mut [f64], c: f64, hp: &[f64], v: &[f64], h: &mut [f64]) {
    let r = v.len();
    assert!(a.len() as u128 >= stored_len(r));
    triangle::syr_symv::<I, _>(Panels(r), a, c, hp, v, h);
}

#[inline(always)]
fn syr_symv_peek_impl<I: Lanes>(
    a: &[f64],
    c: f64,
    hp: &[f64],
    v: &[f64],
    h: &mut [f64],
    scratch: &mut Vec<f64>,
) {
    let r = v.len();
    assert!(a.len() as u128 >= stored_len(r));
    triangle::syr_symv_peek::<I, _>(Panels(r), a, c, hp, v, h, scratch);
}

/// Column `j` of the upper triangle of `A - c hp hp^T` (rows `0..=j`) into
/// `col`, bit for bit what [`syr`] would store.
pub fn updated_column(a: &[f64], r: usize, c: f64, hp: &[f64], j: usize, col: &mut [f64]) {
    let cj = &mut col[..=j];
    let s = col_off(r, j).0;
    cj.copy_from_slice(&a[s..=s + j]);
    crate::linalg::blas::axpy(-c * hp[j], &hp[..=j], cj);
}

/// Packed upper triangle by columns (entry `(i, j)`, `i <= j`, at `j (j + 1) / 2 + i`).
pub fn to_packed(a: &[f64], r: usize) -> Vec<f64> {
    let mut p = Vec::with_capacity(r * (r + 1) / 2);
    for_cols(r, |j, s| p.extend_from_slice(&a[s..=s + j]));
    p
}

/// Panel storage from the packed upper triangle (`p.len() == r (r + 1) / 2`).
pub fn from_packed(p: &[f64], r: usize) -> Vec<f64> {
    let mut a = vec![0.0; stored_len(r) as usize];
    let mut t = 0;
    for_cols(r, |j, s| {
        a[s..=s + j].copy_from_slice(&p[t..=t + j]);
        t += j + 1;
    });
    a
}

/// Dense row-major copy of the symmetric matrix (for tests, diagnostics and Python).
pub fn to_dense(a: &[f64], r: usize) -> Vec<f64> {
    let mut m = vec![0.0; r * r];
    for i in 0..r {
        for j in 0..r {
            m[i * r + j] = get(a, r, i, j);
        }
    }
    m
}

/// `P = A X^T` for the symmetric `A` (upper triangle of `a`, order `r`) and the
/// `n` rows of the row-major `x` (`n x r`); `P` is column-major `r x n`
/// (column `i` = `A x_i`). Matrix-matrix products over column panels of the
/// triangle: each panel multiplies once as itself and once transposed; its
/// diagonal block is symmetrised in `tile` (the matrix is not written).
pub fn symm_rows(a: &[f64], r: usize, x: &[f64], n: usize, p: &mut [f64], tile: &mut Vec<f64>) {
    symm_rows_as(a, r, x, n, p, tile, false);
}

/// [`symm_rows`] into `P^T` (column-major `n x r`: row `i` of `P` at `i n`): the same
/// products, with the small `X` as the left operand of each, so that the product
/// kernel reads the panels of the triangle in place instead of packing them (about
/// 1.2x faster for `n = 64`, `r = 1001` with the `gemm` crate backend: `cargo bench
/// --features bench --bench blocked_phases`).
pub fn symm_rows_t(a: &[f64], r: usize, x: &[f64], n: usize, pt: &mut [f64], tile: &mut Vec<f64>) {
    symm_rows_as(a, r, x, n, pt, tile, true);
}

fn symm_rows_as(
    a: &[f64],
    r: usize,
    x: &[f64],
    n: usize,
    p: &mut [f64],
    tile: &mut Vec<f64>,
    by_rows: bool,
) {
    assert!(a.len() as u128 >= stored_len(r) && x.len() >= n * r && p.len() >= r * n);
    p[..r * n].iter_mut().for_each(|v| *v = 0.0);
    // X^T rows j0..j1 (a k x n view of the row-major x).
    let xt = |j0: usize, j1: usize| View { rows: j1 - j0, cols: n, off: j0, rs: 1, cs: r };
    // Rows j0..j1 of P (column-major r x n, or stored as P^T).
    let pv = |j0: usize, j1: usize| {
        if by_rows {
            View { rows: j1 - j0, cols: n, off: j0 * n, rs: n, cs: 1 }
        } else {
            View::col_major(j1 - j0, n, j0, r)
        }
    };
    for j0 in (0..r).step_by(PANEL) {
        let j1 = (j0 + PANEL).min(r);
        let nb = j1 - j0;
        let base = panel_off(j0 / PANEL);
        symmetrised_tile(&a[base + j0..], j1, nb, tile);
        gemm(1.0, tile, View::col_major(nb, nb, 0, nb), x, xt(j0, j1), 1.0, p, pv(j0, j1));
        if j0 > 0 {
            let above = View::col_major(j0, nb, base, j1);
            gemm(1.0, a, above, x, xt(j0, j1), 1.0, p, pv(0, j0));
            gemm(1.0, a, above.t(), x, xt(0, j0), 1.0, p, pv(j0, j1));
        }
    }
}

/// The symmetric `nb x nb` matrix (column-major in `tile`) of the upper triangle of
/// the column-major block `d` (leading dimension `ld`): columns copied, then the
/// lower part filled by `TB x TB` tiles of the transpose (each tile's reads and
/// writes stay in a few cache lines; element by element it was 3-4% of a block).
fn symmetrised_tile(d: &[f64], ld: usize, nb: usize, tile: &mut Vec<f64>) {
    const TB: usize = 16;
    tile.clear();
    tile.resize(nb * nb, 0.0);
    for j in 0..nb {
        tile[j * nb..=j * nb + j].copy_from_slice(&d[j * ld..=j * ld + j]);
    }
    for jb in (0..nb).step_by(TB) {
        for ib in (jb..nb).step_by(TB) {
            for j in jb..(jb + TB).min(nb) {
                for i in ib.max(j + 1)..(ib + TB).min(nb) {
                    tile[j * nb + i] = tile[i * nb + j];
                }
            }
        }
    }
}

/// `A += alpha H1 H2^T` on the upper triangle of `a` (order `r`), for
/// column-major `r x n` `h1`, `h2` (a symmetric rank-`n` update when
/// `H1 H2^T` is symmetric). Column panels: rows `0..j0` of panel `[j0, j1)` by one
/// product, its diagonal block by columns of [`DIAG_STEP`] rows `j0..=j` (at most
/// `DIAG_STEP - 1` rows below the diagonal, scratch, instead of the whole block:
/// 1.08x on the update at `r = 1001`, `n = 64`).
pub fn rank_update(a: &mut [f64], r: usize, alpha: f64, h1: &[f64], h2: &[f64], n: usize) {
    assert!(a.len() as u128 >= stored_len(r) && h1.len() >= r * n && h2.len() >= r * n);
    for j0 in (0..r).step_by(PANEL) {
        let j1 = (j0 + PANEL).min(r);
        let base = panel_off(j0 / PANEL);
        let h2t = |c0: usize, c1: usize| View { rows: n, cols: c1 - c0, off: c0, rs: r, cs: 1 };
        let h1v = |i0: usize, i1: usize| View::col_major(i1 - i0, n, i0, r);
        if j0 > 0 {
            let pv = View::col_major(j0, j1 - j0, base, j1);
            gemm(alpha, h1, h1v(0, j0), h2, h2t(j0, j1), 1.0, a, pv);
        }
        for c0 in (j0..j1).step_by(DIAG_STEP) {
            let c1 = (c0 + DIAG_STEP).min(j1);
            let pv = View::col_major(c1 - j0, c1 - c0, base + (c0 - j0) * j1 + j0, j1);
            gemm(alpha, h1, h1v(j0, c1), h2, h2t(c0, c1), 1.0, a, pv);
        }
    }
}

/// Column width of the pieces of a diagonal block in [`rank_update`].
const DIAG_STEP: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_match_dense_and_fused_is_bitwise_two_pass() {
        let r = 150;
        let mut a = vec![f64::NAN; stored_len(r) as usize];
        for_cols(r, |j, s| {
            for i in 0..=j {
                a[s + i] = ((i * 7 + j * 3) as f64).sin();
            }
        });
        let v: Vec<f64> = (0..r).map(|i| (i as f64).cos()).collect();
        let hp: Vec<f64> = (0..r).map(|i| (i as f64 * 0.4).sin()).collect();
        let dense = to_dense(&a, r);
        let mut h = vec![0.0; r];
        symv(&a, &v, &mut h);
        for i in 0..r {
            let e: f64 = (0..r).map(|j| dense[i * r + j] * v[j]).sum();
            assert!((h[i] - e).abs() < 1e-11);
        }
        let mut two = a.clone();
        syr(&mut two, 0.5, &hp);
        for i in 0..r {
            for j in 0..r {
                let e = dense[i * r + j] - 0.5 * hp[i] * hp[j];
                assert!((get(&two, r, i, j) - e).abs() < 1e-12);
            }
        }
        let mut h2 = vec![0.0; r];
        symv(&two, &v, &mut h2);
        let mut fused = a.clone();
        let mut h3 = vec![0.0; r];
        syr_symv(&mut fused, 0.5, &hp, &v, &mut h3);
        assert_eq!(
            h2.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            h3.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(to_packed(&two, r), to_packed(&fused, r));
        let (mut h4, mut col) = (vec![0.0; r], vec![0.0; r]);
        syr_symv_peek(&a, 0.5, &hp, &v, &mut h4, &mut Vec::new());
        assert_eq!(
            h3.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            h4.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        for j in 0..r {
            updated_column(&a, r, 0.5, &hp, j, &mut col);
            let s = col_off(r, j).0;
            assert_eq!(&col[..=j], &two[s..=s + j]);
        }
        assert_eq!(to_packed(&from_packed(&to_packed(&a, r), r), r), to_packed(&a, r));
    }

    #[test]
    fn panel_products_match_dense() {
        for r in [5usize, 128, 131, 300] {
            let n = 7;
            let mut a = vec![f64::NAN; stored_len(r) as usize];
            for_cols(r, |j, s| {
                for i in 0..=j {
                    a[s + i] = ((i * 7 + j * 3) as f64).sin() / r as f64;
                }
            });
            let dense = to_dense(&a, r);
            let x: Vec<f64> = (0..n * r).map(|i| (i as f64 * 0.31).cos()).collect();
            let mut p = vec![0.0; r * n];
            symm_rows(&a, r, &x, n, &mut p, &mut Vec::new());
            for c in 0..n {
                for i in 0..r {
                    let e: f64 = (0..r).map(|j| dense[i * r + j] * x[c * r + j]).sum();
                    assert!((p[c * r + i] - e).abs() < 1e-12, "r {r}");
                }
            }
            let mut b = a.clone();
            rank_update(&mut b, r, -0.5, &p, &p, n);
            for j in 0..r {
                for i in 0..=j {
                    let e = dense[i * r + j]
                        - 0.5 * (0..n).map(|c| p[c * r + i] * p[c * r + j]).sum::<f64>();
                    assert!((get(&b, r, i, j) - e).abs() < 1e-12);
                }
            }
        }
    }
}
