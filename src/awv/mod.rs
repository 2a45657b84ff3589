//! The linear Vovk-Azoury-Warmuth forecaster on fixed features: the engine of
//! every fixed-embedding learner (PKAWV on the Taylor basis or a fixed Nystrom
//! dictionary, RFF experts of VAW2), with single rounds and blocks of rounds.
mod block;
mod engine;
pub mod outputs;

pub use block::{recursion_multi as block_recursion_multi, MAX_CANCELLATION};
pub use engine::{
    auto_block_size, check_block_size, check_discount_span, check_gamma, no_discount,
    state_doubles, LinearAwv, BLOCK_SIZE, GAMMA, MAX_BLOCK_SIZE,
};
