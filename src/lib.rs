//! kernelstream: online kernel regression and classification.
//!
//! The Rust core holds the per-round work of five papers' algorithms (see the
//! file header of each module for the paper, section and equation it implements):
//!
//! * [`awv`]: the linear Vovk-Azoury-Warmuth engine, the workhorse of every
//!   fixed-feature learner (PKAWV, RFF experts);
//! * [`kernels`], [`features`]: kernels and explicit feature maps (Taylor basis of
//!   the Gaussian kernel, random Fourier features);
//! * [`samplers`]: KORS leverage-score sampling;
//! * [`learners`]: the online learners, all behind [`learners::OnlineLearner`];
//! * [`aggregation`]: expert-aggregation rules (VAW, EWA, AA, BOA, ML-Poly, ML-Prod);
//! * [`bases`]: eigen-bases of the online projection estimator;
//! * [`stream`]: validated whole-stream loops (the online protocol over an array);
//! * [`uncertainty`]: predictive standard deviations (noise level, mixtures);
//! * [`parallel`]: independent experts of a block of rounds on several threads;
//! * [`state`], [`limits`]: validation of decoded state, the memory ceiling and
//!   scale ranges of parameters.
//!
//! Internal, not API: `simd` (run-time choice of the instruction set for the hot
//! kernels; the crate itself is compiled for baseline x86-64), `linalg` (the hot
//! dense kernels) and `interrupt` (cooperative Ctrl-C). The crate's own integration
//! tests and benchmarks reach them through the hidden `__internal` module.
//!
//! The core never touches Python: the bindings live in `python` behind the
//! `python` cargo feature.

pub mod aggregation;
pub mod awv;
pub mod bases;
pub mod calibration;
pub mod error;
pub mod features;
pub(crate) mod interrupt;
pub mod kernels;
pub mod learners;
pub mod limits;
pub(crate) mod linalg;
pub mod mixture;
pub mod multi;
pub mod parallel;
pub mod params;
pub mod rng;
pub mod samplers;
pub mod scaling;
pub(crate) mod simd;
pub mod state;
pub mod stream;
pub mod uncertainty;

#[cfg(feature = "python")]
pub mod python;

pub use error::{KsError, Result};

/// The internals the crate's integration tests and benchmarks use (and the paths
/// [`dispatch!`] expands to): not part of the API, no stability promise.
#[doc(hidden)]
pub mod __internal {
    pub mod linalg {
        pub use crate::linalg::{blas, cholesky, gemm, packed, triangle, upper};
    }
    pub mod simd {
        pub use crate::simd::*;
    }
    pub mod interrupt {
        pub use crate::interrupt::*;
    }
}
