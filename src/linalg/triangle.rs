//! Per-round kernels on the upper triangle of a symmetric matrix stored by
//! columns, shared by packed storage ([`super::packed`]) and panel storage
//! ([`super::upper`]): the mat-vec `h = A v`, and the rank-one update
//! `A -= c hp hp^T` followed by that mat-vec in one pass over the triangle.
//!
//! Columns go four at a time: one sweep over rows `0..j` loads and stores `h`
//! once for the four columns (`h_i += v_j A_ij` for each, in column order) and
//! feeds four partial sums per column (`A_ij v_i`, for `h_j` by symmetry), held
//! in explicit four-lane vectors ([`crate::simd::Lanes`]; left to itself the
//! compiler vectorised across the columns, with shuffles). Four columns and one
//! vector per column keep every live value in the 16 AVX2 registers (two
//! vectors per column spilled). The order of every operation is fixed, so
//! results do not depend on the vector width, and the fused pass equals the
//! update then the mat-vec bit for bit (each updated entry is
//! `fma(-c hp_j, hp_i, A_ij)`, as in [`syr_col`]).

use crate::simd::{Isa, Lanes};

/// Columns per group.
const G: usize = 4;
/// Vectors of four lanes per column in a chunk of rows.
const Q: usize = 1;
/// Rows per chunk: partial sums per column.
const L: usize = 4 * Q;

/// Where column `j` (row 0) starts in a storage.
pub trait Layout: Copy {
    fn off(self, j: usize) -> usize;
}

#[inline(always)]
fn reduce(a: &[f64; L]) -> f64 {
    let mut s = [0.0; 4];
    for q in a.as_chunks::<4>().0 {
        for l in 0..4 {
            s[l] += q[l];
        }
    }
    (s[0] + s[2]) + (s[1] + s[3])
}

// SAFETY (every `unsafe` block below): `I: Lanes` is instantiated with `Fused`
// only by `dispatch!`'s AVX2/AVX-512 functions (the `Lanes` contract).

#[inline(always)]
unsafe fn load_chunk<I: Lanes>(x: &[f64; L]) -> [I::V; Q] {
    let mut v = [unsafe { I::splat(0.0) }; Q];
    for (vi, qi) in v.iter_mut().zip(x.as_chunks::<4>().0) {
        *vi = unsafe { I::load(qi) };
    }
    v
}

/// `[splat(x_k)]` (a loop, not a closure: closures do not inherit the target features).
#[inline(always)]
unsafe fn splats<I: Lanes, const N: usize>(x: &[f64; N]) -> [I::V; N] {
    let mut v = [unsafe { I::splat(0.0) }; N];
    for k in 0..N {
        v[k] = unsafe { I::splat(x[k]) };
    }
    v
}

#[inline(always)]
unsafe fn store_chunk<I: Lanes>(v: [I::V; Q], x: &mut [f64; L]) {
    for (vi, qi) in v.into_iter().zip(x.as_chunks_mut::<4>().0) {
        unsafe { I::store(vi, qi) };
    }
}

/// Eight rows of a group: `h_i += vk_k c_ki` (k in order), `acc_k += c_ki v_i`.
#[inline(always)]
unsafe fn chunk<I: Lanes, const N: usize>(
    c: &[[I::V; Q]; N],
    vk: &[I::V; N],
    v: &[f64; L],
    h: &mut [f64; L],
    acc: &mut [[I::V; Q]; N],
) {
    unsafe {
        let (v, mut hv) = (load_chunk::<I>(v), load_chunk::<I>(h));
        for k in 0..N {
            for q in 0..Q {
                hv[q] = I::fma(vk[k], c[k][q], hv[q]);
                acc[k][q] = I::fma(c[k][q], v[q], acc[k][q]);
            }
        }
        store_chunk::<I>(hv, h);
    }
}

/// One row of a group outside the eight-row chunks (scalar sums in `tail`).
#[inline(always)]
fn row<I: Isa, const N: usize>(
    c: [f64; N],
    vk: &[f64; N],
    vi: f64,
    hi: &mut f64,
    tail: &mut [f64; N],
) {
    for k in 0..N {
        *hi = I::mul_add(vk[k], c[k], *hi);
        tail[k] = I::mul_add(c[k], vi, tail[k]);
    }
}

/// The group's own block (rows `j..j + N`) and its contributions to `h[j..j + N]`.
#[inline(always)]
unsafe fn finish<I: Lanes, const N: usize>(
    cols: [&[f64]; N],
    j: usize,
    v: &[f64],
    h: &mut [f64],
    acc: &[[I::V; Q]; N],
    tail: &[f64; N],
) {
    for k in 0..N {
        let (col, vc) = (cols[k], v[j + k]);
        let mut lanes = [0.0; L];
        unsafe { store_chunk::<I>(acc[k], &mut lanes) };
        let mut t = tail[k];
        for i in j..j + k {
            h[i] = I::mul_add(vc, col[i], h[i]);
            t = I::mul_add(col[i], v[i], t);
        }
        h[j + k] += I::mul_add(col[j + k], vc, reduce(&lanes) + t);
    }
}

// Small arrays are filled by loops, not `std::array::from_fn`: its closures
// were not inlined into the per-path kernels (a call per group of columns).

/// `x[..N]` as an array.
#[inline(always)]
fn vals<const N: usize>(x: &[f64]) -> [f64; N] {
    let mut a = [0.0; N];
    a.copy_from_slice(&x[..N]);
    a
}

/// Where columns `j..j + N` start, minus `base`.
#[inline(always)]
fn offsets<Lay: Layout, const N: usize>(lay: Lay, j: usize, base: usize) -> [usize; N] {
    let mut o = [0; N];
    for (k, ok) in o.iter_mut().enumerate() {
        *ok = lay.off(j + k) - base;
    }
    o
}

/// Columns `j..j + N` (at `offs`) of `h = A v`.
#[inline(always)]
fn group<I: Lanes, const N: usize>(
    a: &[f64],
    offs: [usize; N],
    j: usize,
    v: &[f64],
    h: &mut [f64],
) {
    let mut cols: [&[f64]; N] = [&[]; N];
    for k in 0..N {
        cols[k] = &a[offs[k]..offs[k] + j + k + 1];
    }
    let vs = vals::<N>(&v[j..]);
    let vk = unsafe { splats::<I, N>(&vs) };
    let mut acc = [[unsafe { I::splat(0.0) }; Q]; N];
    let mut tail = [0.0; N];
    let mut cc: [&[[f64; L]]; N] = [&[]; N];
    for k in 0..N {
        cc[k] = cols[k][..j].as_chunks::<L>().0;
    }
    let (vc, hc) = (v[..j].as_chunks::<L>().0, h[..j].as_chunks_mut::<L>().0);
    let n = vc.len();
    assert!(hc.len() == n && cc.iter().all(|c| c.len() == n));
    for t in 0..n {
        let mut c = [[unsafe { I::splat(0.0) }; Q]; N];
        for k in 0..N {
            c[k] = unsafe { load_chunk::<I>(&cc[k][t]) };
        }
        unsafe { chunk::<I, N>(&c, &vk, &vc[t], &mut hc[t], &mut acc) };
    }
    for i in j - j % L..j {
        let mut c = [0.0; N];
        for k in 0..N {
            c[k] = cols[k][i];
        }
        row::<I, N>(c, &vs, v[i], &mut h[i], &mut tail);
    }
    unsafe { finish::<I, N>(cols, j, v, h, &acc, &tail) };
}

/// The `N` columns at ascending `offs`, column `k` holding rows `0..=j + k`.
#[inline(always)]
fn columns_mut<const N: usize>(a: &mut [f64], offs: [usize; N], j: usize) -> [&mut [f64]; N] {
    let mut rest = &mut a[offs[0]..];
    let mut at = offs[0];
    let mut cols: [&mut [f64]; N] = [(); N].map(|()| <&mut [f64]>::default());
    for k in 0..N {
        let (col, r) = std::mem::take(&mut rest)[offs[k] - at..].split_at_mut(j + k + 1);
        at = offs[k] + j + k + 1;
        rest = r;
        cols[k] = col;
    }
    cols
}

/// Columns `j..j + N` of the update `A -= c hp hp^T` then of `h = A v`.
#[inline(always)]
fn group_update<I: Lanes, const N: usize>(
    a: &mut [f64],
    offs: [usize; N],
    c: f64,
    hp: &[f64],
    j: usize,
    v: &[f64],
    h: &mut [f64],
) {
    let mut coef = vals::<N>(&hp[j..]);
    for ck in &mut coef {
        *ck *= -c;
    }
    let cv = unsafe { splats::<I, N>(&coef) };
    let vs = vals::<N>(&v[j..]);
    let vk = unsafe { splats::<I, N>(&vs) };
    let mut acc = [[unsafe { I::splat(0.0) }; Q]; N];
    let mut tail = [0.0; N];
    let mut cols = columns_mut(a, offs, j);
    {
        let (vc, hc) = (v[..j].as_chunks::<L>().0, h[..j].as_chunks_mut::<L>().0);
        let hpc = hp[..j].as_chunks::<L>().0;
        let cc = cols.each_mut().map(|c| c[..j].as_chunks_mut::<L>().0);
        let n = vc.len();
        assert!(hc.len() == n && hpc.len() == n && cc.iter().all(|c| c.len() == n));
        for t in 0..n {
            let hpv = unsafe { load_chunk::<I>(&hpc[t]) };
            let mut cn = [[unsafe { I::splat(0.0) }; Q]; N];
            for k in 0..N {
                let old = unsafe { load_chunk::<I>(&cc[k][t]) };
                for q in 0..Q {
                    cn[k][q] = unsafe { I::fma(cv[k], hpv[q], old[q]) };
                }
                unsafe { store_chunk::<I>(cn[k], &mut cc[k][t]) };
            }
            unsafe { chunk::<I, N>(&cn, &vk, &vc[t], &mut hc[t], &mut acc) };
        }
    }
    for i in j - j % L..j {
        let mut c = [0.0; N];
        for k in 0..N {
            let e = &mut cols[k][i];
            *e = I::mul_add(coef[k], hp[i], *e);
            c[k] = *e;
        }
        row::<I, N>(c, &vs, v[i], &mut h[i], &mut tail);
    }
    for (k, col) in cols.iter_mut().enumerate() {
        for i in j..=j + k {
            col[i] = I::mul_add(coef[k], hp[i], col[i]);
        }
    }
    unsafe { finish::<I, N>(cols.each_ref().map(|c| &**c), j, v, h, &acc, &tail) };
}

/// `h = A v` (order `r = v.len()`).
#[inline(always)]
pub(crate) fn symv<I: Lanes, Lay: Layout>(lay: Lay, a: &[f64], v: &[f64], h: &mut [f64]) {
    let r = v.len();
    h[..r].iter_mut().for_each(|x| *x = 0.0);
    let mut j = 0;
    while j + G <= r {
        group::<I, G>(a, offsets(lay, j, 0), j, v, h);
        j += G;
    }
    for j in j..r {
        group::<I, 1>(a, [lay.off(j)], j, v, h);
    }
}

/// `A -= c hp hp^T`, then `h = A v`, in one pass: bit for bit [`syr`] then [`symv`].
#[inline(always)]
pub(crate) fn syr_symv<I: Lanes, Lay: Layout>(
    lay: Lay,
    a: &mut [f64],
    c: f64,
    hp: &[f64],
    v: &[f64],
    h: &mut [f64],
) {
    let r = v.len();
    assert!(hp.len() >= r && h.len() >= r);
    h[..r].iter_mut().for_each(|x| *x = 0.0);
    let mut j = 0;
    while j + G <= r {
        group_update::<I, G>(a, offsets(lay, j, 0), c, hp, j, v, h);
        j += G;
    }
    for j in j..r {
        group_update::<I, 1>(a, [lay.off(j)], c, hp, j, v, h);
    }
}

/// `upd(j, column j)` (rows `0..=j`) for every column, then `h = A v` of the updated
/// matrix, in one pass: bit for bit the update over the whole triangle, then [`symv`]
/// (each group of columns is updated, then multiplied while it is in cache).
#[inline(always)]
pub(crate) fn update_symv<I: Lanes, Lay: Layout>(
    lay: Lay,
    a: &mut [f64],
    mut upd: impl FnMut(usize, &mut [f64]),
    v: &[f64],
    h: &mut [f64],
) {
    let r = v.len();
    h[..r].iter_mut().for_each(|x| *x = 0.0);
    let mut j = 0;
    while j < r {
        let n = if j + G <= r { G } else { 1 };
        for k in j..j + n {
            let s = lay.off(k);
            upd(k, &mut a[s..=s + k]);
        }
        if n == G {
            group::<I, G>(a, offsets(lay, j, 0), j, v, h);
        } else {
            group::<I, 1>(a, [lay.off(j)], j, v, h);
        }
        j += n;
    }
}

/// [`syr_symv`] without writing `a`: each group's columns are updated in
/// `scratch` (bit for bit the same `h`).
#[inline(always)]
pub(crate) fn syr_symv_peek<I: Lanes, Lay: Layout>(
    lay: Lay,
    a: &[f64],
    c: f64,
    hp: &[f64],
    v: &[f64],
    h: &mut [f64],
    scratch: &mut Vec<f64>,
) {
    let r = v.len();
    assert!(hp.len() >= r && h.len() >= r);
    h[..r].iter_mut().for_each(|x| *x = 0.0);
    let mut j = 0;
    while j < r {
        let n = if j + G <= r { G } else { 1 };
        let (s0, s1) = (lay.off(j), lay.off(j + n - 1) + j + n);
        scratch.clear();
        scratch.extend_from_slice(&a[s0..s1]);
        if n == G {
            let offs = offsets(lay, j, s0);
            group_update::<I, G>(scratch, offs, c, hp, j, v, h);
        } else {
            group_update::<I, 1>(scratch, [0], c, hp, j, v, h);
        }
        j += n;
    }
}

/// Column `j` (rows `0..=j`, in `col`) of `A -= c hp hp^T`: `A_ij = fma(-c hp_j, hp_i, A_ij)`.
#[inline(always)]
pub fn syr_col<I: Isa>(col: &mut [f64], c: f64, hp: &[f64], j: usize) {
    let alpha = -c * hp[j];
    for (yi, xi) in col[..=j].iter_mut().zip(&hp[..=j]) {
        *yi = I::mul_add(alpha, *xi, *yi);
    }
}

/// `A -= c hp hp^T` (order `r = hp.len()`).
#[inline(always)]
pub fn syr<I: Isa, Lay: Layout>(lay: Lay, a: &mut [f64], c: f64, hp: &[f64]) {
    for j in 0..hp.len() {
        let s = lay.off(j);
        syr_col::<I>(&mut a[s..=s + j], c, hp, j);
    }
}
