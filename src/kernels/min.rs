//! Kernel `min(s, t)` of the first-order Sobolev space W_1^0([0, 1]) (functions with
//! `f(0) = 0`): Zhang and Simon, Table 1 / eq. (11), Example 2.
//! In d dimensions the tensor product `prod_l min(x_l, y_l)` (sec. 5).

/// `prod_l min(x_l, y_l)`.
#[inline]
pub fn min_kernel(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a.min(*b)).product()
}
