//! Periodic second-order Sobolev kernel `-B4({s - t}) / 24`, with the 4th Bernoulli
//! polynomial `B4(x) = x^4 - 2x^3 + x^2 - 1/30` and `{.}` the fractional part: Zhang and
//! Simon, Table 2, Example 1. Also the corrected kernel of the
//! additive example, `s t + s^2 t^2 - B4({s - t}) / 24` (eq. (85) / Table 4 print
//! `+ B4({s - t})`, which is not positive semi-definite: docs/choices.md).

/// `B4(x) = x^4 - 2x^3 + x^2 - 1/30`.
#[inline]
pub fn bernoulli4(x: f64) -> f64 {
    let x2 = x * x;
    x2 * x2 - 2.0 * x2 * x + x2 - 1.0 / 30.0
}

/// `-B4({s - t}) / 24` for scalars.
#[inline]
pub fn bernoulli_periodic_1d(s: f64, t: f64) -> f64 {
    let diff = s - t;
    let frac = diff - diff.floor();
    -bernoulli4(frac) / 24.0
}

/// Tensor product `prod_l -B4({x_l - y_l}) / 24`.
#[inline]
pub fn bernoulli_periodic(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| bernoulli_periodic_1d(*a, *b)).product()
}

/// Additive second-order Sobolev kernel `sum_l [x_l y_l + x_l^2 y_l^2 - B4({x_l - y_l}) / 24]`.
#[inline]
pub fn additive_sobolev2(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(a, b)| {
            let ab = a * b;
            ab + ab * ab + bernoulli_periodic_1d(*a, *b)
        })
        .sum()
}
