//! Explicit feature maps `x -> v(x)` whose inner products approximate a kernel.
//! Every fixed-feature learner is "a feature map + the linear AWV engine".

pub mod nested_cholesky;
pub mod rff;
pub mod taylor;
pub mod trig;

pub use rff::{RandomFourier, RffVariant};
pub use taylor::TaylorGaussian;

/// A feature map from `R^d` to `R^r`.
pub trait FeatureMap {
    /// Input dimension `d`.
    fn input_dim(&self) -> usize;
    /// Number of features `r`.
    fn dim(&self) -> usize;
    /// Writes `v(x)` into `out` (`out.len() == dim()`); allocates nothing.
    fn map_into(&self, x: &[f64], out: &mut [f64]);
    /// `v(x)` as a new vector.
    fn map(&self, x: &[f64]) -> Vec<f64> {
        let mut v = vec![0.0; self.dim()];
        self.map_into(x, &mut v);
        v
    }
}
