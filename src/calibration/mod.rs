//! Online calibration of classifier scores into probabilities.
//!
//! [`SoftmaxCalibrator`]: a multinomial logistic layer on the K scores of a classifier
//! (Platt scaling when K = 2), fitted online by the Online Newton Step; see
//! `docs/classification.md` for the model and the choice of its step.
//! [`TopLabelBinning`]: its optional second stage, a Bayesian average of histogram
//! binnings of the top-label confidence.

pub mod binning;
pub mod softmax;

pub use binning::TopLabelBinning;
pub use softmax::SoftmaxCalibrator;
