//! Vectorisable cosine and sine for the random-feature maps (the hot part of a
//! MultiKernelAWV round: N m cosines per round).
//!
//! Range reduction `x = k pi/2 + r`, `|r| <= pi/4`, with `pi/2` split in three
//! parts (33 + 33 + 53 bits: `k * P1` and `k * P2` are exact for `|k| < 2^20`),
//! then Taylor polynomials of degree 16 (cos) and 15 (sin) on `|r| <= pi/4`
//! (truncation error < 5e-17) evaluated by Horner, and the quadrant chosen with
//! bit operations so that the loop has no branches. Arguments with
//! `|x| > FAST_LIMIT` (heavy-tailed Cauchy frequencies) are recomputed with the
//! standard library afterwards. Agreement with `f64::cos` is a few ulp (tested).
//! Compiled per instruction-set path ([`crate::simd`]); the FMA paths evaluate
//! Horner's steps with fused multiply-adds.

use crate::simd::Isa;

/// Largest |x| handled by the fast path.
pub const FAST_LIMIT: f64 = 1.0e5;

const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
// pi/2 = P1 + P2 + P3 (fdlibm's split of the digits of pi/2).
const P1: f64 = 1.570_796_326_734_125_6;
const P2: f64 = 6.077_100_506_303_966e-11;
const P3: f64 = 2.022_266_248_711_166_5e-21;
/// 1.5 * 2^52: adding it rounds to the nearest integer (|y| < 2^51).
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

#[inline(always)]
fn reduce(x: f64) -> (f64, u64) {
    let y = x * TWO_OVER_PI + ROUND_MAGIC;
    let q = y.to_bits() & 3; // k mod 4 (the low mantissa bits hold k + 2^51)
    let k = y - ROUND_MAGIC;
    let r = ((x - k * P1) - k * P2) - k * P3;
    (r, q)
}

#[inline(always)]
fn sin_poly<I: Isa>(r: f64) -> f64 {
    let r2 = r * r;
    // sum_{j=0..7} (-1)^j r^{2j+1} / (2j+1)!
    let p = -1.0 / 1_307_674_368_000.0;
    let p = I::mul_add(p, r2, 1.0 / 6_227_020_800.0);
    let p = I::mul_add(p, r2, -1.0 / 39_916_800.0);
    let p = I::mul_add(p, r2, 1.0 / 362_880.0);
    let p = I::mul_add(p, r2, -1.0 / 5_040.0);
    let p = I::mul_add(p, r2, 1.0 / 120.0);
    let p = I::mul_add(p, r2, -1.0 / 6.0);
    I::mul_add(r * r2, p, r)
}

#[inline(always)]
fn cos_poly<I: Isa>(r: f64) -> f64 {
    let r2 = r * r;
    // sum_{j=0..8} (-1)^j r^{2j} / (2j)!
    let p = 1.0 / 20_922_789_888_000.0;
    let p = I::mul_add(p, r2, -1.0 / 87_178_291_200.0);
    let p = I::mul_add(p, r2, 1.0 / 479_001_600.0);
    let p = I::mul_add(p, r2, -1.0 / 3_628_800.0);
    let p = I::mul_add(p, r2, 1.0 / 40_320.0);
    let p = I::mul_add(p, r2, -1.0 / 720.0);
    let p = I::mul_add(p, r2, 1.0 / 24.0);
    let p = I::mul_add(p, r2, -0.5);
    I::mul_add(r2, p, 1.0)
}

/// Picks `a` where `odd` (bit 0 of q) is set, else `b`.
#[inline(always)]
fn select_odd(q: u64, a: f64, b: f64) -> f64 {
    let mask = 0u64.wrapping_sub(q & 1);
    f64::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
}

crate::dispatch! {
    /// `v[i] = scale * cos(v[i])` in place. Entries with `|v[i]| > FAST_LIMIT` are
    /// computed with `f64::cos`.
    pub fn cos_in_place(v: &mut [f64], scale: f64) => cos_impl, cos_in_place_on;
}

crate::dispatch! {
    /// Reads the arguments from `s`, writes `c = scale cos(u)`, `s = scale sin(u)`.
    pub fn sincos_in_place(c: &mut [f64], s: &mut [f64], scale: f64) => sincos_impl, sincos_in_place_on;
}

#[inline(always)]
fn cos_impl<I: Isa>(v: &mut [f64], scale: f64) {
    let big: Vec<(usize, f64)> = collect_big(v);
    for x in v.iter_mut() {
        let (r, q) = reduce(*x);
        let (s, c) = (sin_poly::<I>(r), cos_poly::<I>(r));
        // cos(k pi/2 + r): q = 0: c, 1: -s, 2: -c, 3: s.
        let mag = select_odd(q, s, c);
        let neg = ((q + 1) & 2) << 62;
        *x = scale * f64::from_bits(mag.to_bits() ^ neg);
    }
    for (i, a) in big {
        v[i] = scale * a.cos();
    }
}

#[inline(always)]
fn sincos_impl<I: Isa>(c: &mut [f64], s: &mut [f64], scale: f64) {
    let big: Vec<(usize, f64)> = collect_big(s);
    for (c_out, s_io) in c.iter_mut().zip(s.iter_mut()) {
        let (r, q) = reduce(*s_io);
        let (sp, cp) = (sin_poly::<I>(r), cos_poly::<I>(r));
        // cos: q = 0: c, 1: -s, 2: -c, 3: s.  sin: q = 0: s, 1: c, 2: -s, 3: -c.
        let cm = select_odd(q, sp, cp);
        let sm = select_odd(q, cp, sp);
        let cneg = ((q + 1) & 2) << 62;
        let sneg = (q & 2) << 62;
        *c_out = scale * f64::from_bits(cm.to_bits() ^ cneg);
        *s_io = scale * f64::from_bits(sm.to_bits() ^ sneg);
    }
    for (i, a) in big {
        let (sa, ca) = a.sin_cos();
        c[i] = scale * ca;
        s[i] = scale * sa;
    }
}

/// Entries outside the fast range (allocates only when there are some).
#[inline]
fn collect_big(v: &[f64]) -> Vec<(usize, f64)> {
    if v.iter().all(|a| a.abs() <= FAST_LIMIT) {
        return Vec::new();
    }
    v.iter()
        .enumerate()
        .filter(|(_, a)| a.abs() > FAST_LIMIT || a.is_nan())
        .map(|(i, a)| (i, *a))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_within_a_few_ulp() {
        let mut rng = crate::rng::Rng::new(3);
        let mut u = Vec::new();
        for i in 0..200_000 {
            let scale = [1.0, 10.0, 1e3, 9e4, 1e7][i % 5];
            u.push((2.0 * rng.uniform() - 1.0) * scale);
        }
        u.extend_from_slice(&[
            0.0,
            -0.0,
            std::f64::consts::FRAC_PI_4,
            std::f64::consts::PI,
            1e5,
            -1e5,
            3e5,
        ]);
        let mut c = vec![0.0; u.len()];
        let mut s = u.clone();
        sincos_in_place(&mut c, &mut s, 1.0);
        let mut c2 = u.clone();
        cos_in_place(&mut c2, 2.0);
        for (i, &a) in u.iter().enumerate() {
            assert!((c[i] - a.cos()).abs() <= 6e-16, "cos({a}) {} vs {}", c[i], a.cos());
            assert!((s[i] - a.sin()).abs() <= 6e-16, "sin({a}) {} vs {}", s[i], a.sin());
            assert_eq!(c2[i], 2.0 * c[i]);
        }
    }
}
