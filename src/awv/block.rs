//! Blocked rounds of the linear AWV engine: `n` consecutive rounds with
//! matrix-matrix products, giving the same predictions and state as `n` single
//! rounds up to rounding (Woodbury identity applied to the `n` Sherman-Morrison
//! steps of PKAWV paper Algorithm 1).
//!
//! With `S = A_0^{-1}` at the start of the block and rows `x_0..x_{n-1}`:
//! `P = S X^T` (column `k` = `S x_k`) and `G = X P` (`G_lk = x_l^T S x_k`).
//! Round `i`'s `h_i = A_{i-1}^{-1} x_i` is `sum_k U_ki P_k` with `U` unit upper
//! triangular: from `A_{i-1}^{-1} = S - sum_{j<i} h_j h_j^T / d_j`
//! (`d_j = 1 + delta_j`), `U_{.i} = e_i - sum_{j<i} U_{.j} M_ij / d_j`, where
//! `M = G U` holds every inner product `M_li = x_l^T h_i` the rounds need:
//! `delta_i = M_ii` and `h_i^T b_{i-1} = (U^T P^T b_0)_i + sum_{j<i} y_j M_ji`.
//! At the end `A^{-1} = S - H D^{-1} H^T` with `H = P U`: one rank-`n` update.
//! Cost: `3 r^2 n` flops in three matrix-matrix products plus `O(n^3 + r n^2)`.
//!
//! `K` outputs ([`super::outputs`]): `U`, `M` and the `delta_i` do not depend on
//! the targets; only `P^T B_0` (`n x K`) and the prediction sums run per output.

use crate::linalg::gemm::{gemm, View};
use crate::linalg::upper;

/// Largest accepted cancellation ratio `kappa_i = sum_k |U_ki| ||P_k||_{A_0} / ||h_i||_{A_0}`
/// (`||P_k||_{A_0}^2 = G_kk`, `||h_i||_{A_0}^2 = U_{.i}^T M_{.i}`): `h_i` as a
/// combination of the `P_k` loses about `log10(kappa_i)` digits more than the
/// sequential rounds. Above it the block runs as single rounds (see docs/choices.md).
pub const MAX_CANCELLATION: f64 = 1e4;

/// Scratch of one block (kept between blocks: nothing allocated once warm).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    p: Vec<f64>,
    h: Vec<f64>,
    g: Vec<f64>,
    u: Vec<f64>,
    m: Vec<f64>,
    pb: Vec<f64>,
    tile: Vec<f64>,
    /// The dense rows of a block with coordinate rows ([`run`]) and their `P`.
    xd: Vec<f64>,
    pd: Vec<f64>,
}

/// Runs the block on the upper triangle `ainv` (order `r > 0`) and `b` (`r x K`
/// by columns, not updated here) with row-major targets `y` (`n x K`): writes the
/// `n x K` predictions into `out` (row-major) and `delta_i` into `deltas`. Returns
/// `false`, leaving `ainv` untouched, when the `n x n` recursion is too
/// ill-conditioned (see [`MAX_CANCELLATION`]).
/// The rows listed in `units` (ascending `(l, k)`; none: `&[]`) are coordinate rows
/// `x_l = s e_k`: their columns `P_l = s S e_k` are read off the triangle instead of
/// multiplied, the same numbers (in `S x_l` every other product is an exact zero, so
/// each entry is the one product `S_ik s`, rounded once).
#[allow(clippy::too_many_arguments)]
pub fn run(
    ainv: &mut [f64],
    r: usize,
    b: &[f64],
    ridge: bool,
    x: &[f64],
    y: &[f64],
    out: &mut [f64],
    deltas: &mut [f64],
    sc: &mut Scratch,
    units: &[(usize, usize)],
) -> bool {
    let k = b.len() / r;
    let n = deltas.len();
    assert!(x.len() == n * r && y.len() == n * k && out.len() == n * k && b.len() == r * k);
    sc.p.resize(r * n, 0.0);
    sc.h.resize(r * n, 0.0);
    sc.g.clear();
    sc.g.resize(n * n, 0.0);
    sc.pb.resize(n * k, 0.0);
    // P = S X^T, stored as P^T (column-major n x r: row i of P at i n, the faster
    // orientation of the panel products, upper::symm_rows_t); G = X P
    // (column-major, G_lk at k n + l).
    if units.is_empty() {
        upper::symm_rows_t(ainv, r, x, n, &mut sc.p, &mut sc.tile);
    } else {
        unit_columns(ainv, r, x, n, units, sc);
    }
    let pv = View { rows: r, cols: n, off: 0, rs: n, cs: 1 };
    lower_gram(x, &sc.p, r, n, &mut sc.g);
    // pb = P^T B (n x K by columns: column j holds x_l^T A_0^{-1} B_j).
    let (bv, cv) = (View::col_major(r, k, 0, r), View::col_major(n, k, 0, n));
    gemm(1.0, &sc.p, pv.t(), b, bv, 0.0, &mut sc.pb, cv);
    if !recursion_multi(&sc.g, &sc.pb, y, k, ridge, out, deltas, &mut sc.u, &mut sc.m) {
        return false;
    }
    // H = P U, then S -= H D^{-1} H^T (P's storage takes H D^{-1}).
    // U is unit upper triangular: columns c0..c1 of H need columns 0..c1 of P.
    for c0 in (0..n).step_by(STRIP) {
        let c1 = (c0 + STRIP).min(n);
        let (pc, uc) = (View { cols: c1, ..pv }, View::col_major(c1, c1 - c0, c0 * n, n));
        gemm(1.0, &sc.p, pc, &sc.u, uc, 0.0, &mut sc.h, View::col_major(r, c1 - c0, c0 * r, r));
    }
    for ((pk, hk), dk) in sc.p.chunks_exact_mut(r).zip(sc.h.chunks_exact(r)).zip(deltas.iter()) {
        let s = 1.0 / (1.0 + dk);
        pk.iter_mut().zip(hk).for_each(|(a, c)| *a = c * s);
    }
    upper::rank_update(ainv, r, -1.0, &sc.p, &sc.h, n);
    true
}

/// Column strips of `G` and `H = P U` in [`run`]: their triangular structure saves a
/// quarter of the two products' flops.
const STRIP: usize = 32;

/// `G = X P` (column-major `n x n`) for `P` stored as `P^T` (`n x r` by columns): `G`
/// is symmetric (`x_l^T S x_k`), so each strip of columns is computed from its
/// diagonal down and the entries above the diagonal strips are mirrored.
fn lower_gram(x: &[f64], pt: &[f64], r: usize, n: usize, g: &mut [f64]) {
    for c0 in (0..n).step_by(STRIP) {
        let c1 = (c0 + STRIP).min(n);
        let xv = View { rows: n - c0, cols: r, off: c0 * r, rs: r, cs: 1 };
        let pv = View { rows: r, cols: c1 - c0, off: c0, rs: n, cs: 1 };
        gemm(1.0, x, xv, pt, pv, 0.0, g, View::col_major(n - c0, c1 - c0, c0 * n + c0, n));
    }
    for k in STRIP..n {
        for l in 0..k / STRIP * STRIP {
            g[k * n + l] = g[l * n + k];
        }
    }
}

/// `P = S X^T` (into `sc.p`, stored as `P^T`) for the `n` rows of `x` of which `units` are coordinate
/// rows ([`run`]): the dense rows by one product, the others from the triangle.
fn unit_columns(
    ainv: &[f64],
    r: usize,
    x: &[f64],
    n: usize,
    units: &[(usize, usize)],
    sc: &mut Scratch,
) {
    sc.xd.clear();
    let mut next = units.iter().peekable();
    for (l, row) in x.chunks_exact(r).enumerate().take(n) {
        if next.next_if(|u| u.0 == l).is_none() {
            sc.xd.extend_from_slice(row);
        }
    }
    let nd = sc.xd.len() / r;
    sc.pd.resize(r * nd, 0.0);
    upper::symm_rows_t(ainv, r, &sc.xd, nd, &mut sc.pd, &mut sc.tile);
    // Both stored as transposes: entry (i, l) of P at i n + l, of the dense P at i nd + l.
    let mut dense = 0;
    let mut next = units.iter().peekable();
    for l in 0..n {
        match next.next_if(|u| u.0 == l) {
            Some(&(_, c)) => {
                let s = x[l * r + c];
                for i in 0..r {
                    sc.p[i * n + l] = upper::get(ainv, r, i, c) * s;
                }
            }
            None => {
                for i in 0..r {
                    sc.p[i * n + l] = sc.pd[i * nd + dense];
                }
                dense += 1;
            }
        }
    }
}

/// The `n x n` recursion of a block (see the module documentation), shared by
/// every learner that runs blocks of AWV rounds on `k` outputs: from `G`
/// (column-major `n x n`, `G_lk = x_l^T A_0^{-1} x_k`) and `pb = P^T B_0` (`n x k` by
/// columns, `pb_k = x_k^T A_0^{-1} b_0` for one output) and the targets `y`
/// (row-major `n x k`), writes the `n x k` predictions (row-major) into `out`,
/// `delta_i = x_i^T A_{i-1}^{-1} x_i` into `deltas`, and `U` and `M = G U`
/// (column-major) into `u` and `m`.
/// Returns `false` when the recursion is too ill-conditioned
/// (see [`MAX_CANCELLATION`]); `out` and `deltas` are then partly written.
#[allow(clippy::too_many_arguments)]
pub fn recursion_multi(
    g: &[f64],
    pb: &[f64],
    y: &[f64],
    k: usize,
    ridge: bool,
    out: &mut [f64],
    deltas: &mut [f64],
    u: &mut Vec<f64>,
    m: &mut Vec<f64>,
) -> bool {
    let n = deltas.len();
    assert!(g.len() >= n * n && pb.len() == n * k && out.len() == n * k && y.len() == n * k);
    for v in [&mut *u, &mut *m] {
        v.clear();
        v.resize(n * n, 0.0);
    }
    for i in 0..n {
        let (done, rest) = u.split_at_mut(i * n);
        let ui = &mut rest[..n];
        ui[i] = 1.0;
        for j in 0..i {
            let coef = m[j * n + i] / (1.0 + deltas[j]);
            for (a, c) in ui[..=j].iter_mut().zip(&done[j * n..=j * n + j]) {
                *a -= coef * c;
            }
        }
        let mi = &mut m[i * n..(i + 1) * n];
        for (k, &uk) in ui[..=i].iter().enumerate() {
            for (ml, gl) in mi.iter_mut().zip(&g[k * n..(k + 1) * n]) {
                *ml += uk * gl;
            }
        }
        let delta = mi[i];
        let norm2: f64 = ui[..=i].iter().zip(&mi[..=i]).map(|(a, c)| a * c).sum();
        let spread: f64 =
            ui[..=i].iter().enumerate().map(|(k, a)| a.abs() * g[k * n + k].max(0.0).sqrt()).sum();
        if !(delta >= 0.0 && norm2 > 0.0 && spread <= MAX_CANCELLATION * norm2.sqrt()) {
            return false;
        }
        for (c, pbc) in pb.chunks_exact(n).enumerate() {
            let mut hb: f64 = ui[..=i].iter().zip(pbc).map(|(a, c)| a * c).sum();
            for j in 0..i {
                hb += y[j * k + c] * mi[j];
            }
            out[i * k + c] = if ridge { hb } else { hb / (1.0 + delta) };
        }
        deltas[i] = delta;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinate_rows_give_the_dense_block_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(11);
        for (r, n) in [(5, 6), (130, 16), (165, 64)] {
            // A^{-1} of lam I + a few random rows (a positive definite triangle).
            let mut a = upper::scaled_identity(r, 2.0);
            let h: Vec<f64> = (0..r).map(|_| 0.3 * rng.normal()).collect();
            upper::syr(&mut a, 0.5, &h);
            let b: Vec<f64> = (0..r).map(|_| rng.normal()).collect();
            let (mut x, mut y, mut units) = (vec![0.0; n * r], Vec::new(), Vec::new());
            for l in 0..n {
                if l % 2 == 0 {
                    let c = (7 * l + 3) % r;
                    x[l * r + c] = 0.1 + rng.normal().abs();
                    units.push((l, c));
                    y.push(0.0);
                } else {
                    x[l * r..(l + 1) * r].iter_mut().for_each(|v| *v = rng.normal());
                    y.push(rng.normal());
                }
            }
            let (mut a1, mut o0, mut o1) = (a.clone(), vec![0.0; n], vec![0.0; n]);
            let (mut d0, mut d1) = (vec![0.0; n], vec![0.0; n]);
            let mut sc = Scratch::default();
            assert!(run(&mut a, r, &b, false, &x, &y, &mut o0, &mut d0, &mut sc, &[]));
            assert!(run(&mut a1, r, &b, false, &x, &y, &mut o1, &mut d1, &mut sc, &units));
            let bits = |v: &[f64]| v.iter().map(|z| z.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&o0), bits(&o1), "r = {r}");
            assert_eq!(bits(&d0), bits(&d1));
            assert_eq!(bits(&a), bits(&a1));
        }
    }
}
