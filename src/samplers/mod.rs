//! Dictionary samplers for Nystrom embeddings: KORS (kernel online row sampling),
//! shared by NystromAWV (PKAWV paper sec. 3.2) and PROS-N-KONS.
pub mod kors;

pub use kors::{Kors, KorsParams, KorsStep, KorsWeights};
