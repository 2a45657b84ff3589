//! Mixtures of learners: [`Mixture`] combines any learners of the crate online by
//! an aggregation rule of [`crate::aggregation`]; [`AutoKernel`] is a mixture of
//! kernel experts whose widths and regularisations come from the stream's own
//! scale. [`AnyLearner`] is the one dynamic-dispatch interface over the learners.

pub mod any;
pub mod autokernel;
pub mod experts;
pub mod loss_scale;
mod outputs;
pub mod restart;
pub mod scale;
mod shared_features;
pub mod traced;
mod warm_cholesky;
mod warm_krr;
pub mod warm_mix;

pub use any::AnyLearner;
pub use autokernel::{AutoKernel, AutoKernelParams, ExpertFeatures, ExpertSpec};
pub use experts::{Mixture, MixtureParams, Trace, MIXTURE_ARGS};
pub use traced::Traced;
