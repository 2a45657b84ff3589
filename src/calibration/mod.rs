//! Online calibration of classifier scores into probabilities.
//!
//! [`SoftmaxCalibrator`]: a multinomial logistic layer on the K scores of a classifier
//! (Platt scaling when K = 2), fitted online by the Online Newton Step; see
//! `docs/classification.md` for the model and the choice of its step.

pub mod softmax;

pub use softmax::SoftmaxCalibrator;
