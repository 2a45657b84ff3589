//! Always-on prefix functions: shifted Legendre polynomials on [0, 1],
//! `P~_k(x) = P_k(2x - 1)` (`P~_0 = 1`, `P~_1 = 2x - 1`, `P~_2 = 6x^2 - 6x + 1`). They span
//! the null spaces {1} and {1, x, x^2} appended in Zhang and Simon, Appendix F (Examples
//! A.1, A.2) and Appendix D (additive model): same span as 1, x, x^2, so the same estimator
//! (the estimator depends only on the span of its columns), better conditioned.

/// Writes `P~_0(x), ..., P~_m(x)` into `out[..=m]` (Bonnet recurrence).
pub fn eval_into(x: f64, out: &mut [f64]) {
    let t = 2.0 * x - 1.0;
    for k in 0..out.len() {
        out[k] = match k {
            0 => 1.0,
            1 => t,
            _ => {
                let kf = k as f64;
                ((2.0 * kf - 1.0) * t * out[k - 1] - (kf - 1.0) * out[k - 2]) / kf
            }
        };
    }
}
