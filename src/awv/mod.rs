//! The linear Vovk-Azoury-Warmuth forecaster on fixed features: the engine of
//! every fixed-embedding learner (PKAWV on the Taylor basis or a fixed Nystrom
//! dictionary, RFF experts of VAW2).
mod engine;

pub use engine::LinearAwv;
