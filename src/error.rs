//! Error type of the core. Every fallible public function returns [`Result`];
//! nothing reachable from Python panics. The bindings map each variant onto the
//! Python exception of the API contract (`InputError`, `ParameterError`,
//! `NumericalError`).

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum KsError {
    /// Bad data: wrong shape, NaN or infinity, a label outside {-1, +1}, ...
    Input(String),
    /// Bad constructor argument or an impossible parameter combination.
    Parameter(String),
    /// A numerical failure that could not be repaired; says which quantity and what was tried.
    Numerical(String),
    /// A broken internal invariant (a bug, never the user's input).
    Internal(String),
    /// A long call was interrupted (Ctrl-C) at a round boundary; see [`crate::interrupt`].
    Interrupted(String),
}

pub type Result<T> = std::result::Result<T, KsError>;

impl fmt::Display for KsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KsError::Input(m)
            | KsError::Parameter(m)
            | KsError::Numerical(m)
            | KsError::Internal(m)
            | KsError::Interrupted(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for KsError {}

/// `Err(KsError::Input(..))` with a formatted message.
#[macro_export]
macro_rules! input_err {
    ($($arg:tt)*) => { Err($crate::error::KsError::Input(format!($($arg)*))) };
}

/// `Err(KsError::Parameter(..))` with a formatted message.
#[macro_export]
macro_rules! param_err {
    ($($arg:tt)*) => { Err($crate::error::KsError::Parameter(format!($($arg)*))) };
}

/// Smallest and largest value accepted for a scale parameter (a kernel width, a
/// regularisation, a step size, ...): outside, its square or its inverse square
/// under- or overflows double precision and the learner would compute NaN.
pub const SCALE_MIN: f64 = 1e-100;
pub const SCALE_MAX: f64 = 1e100;

/// Checks a finite scale parameter in `[SCALE_MIN, SCALE_MAX]`.
pub fn scale(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && (SCALE_MIN..=SCALE_MAX).contains(&value) {
        Ok(value)
    } else {
        param_err!(
            "{name} must be a finite number in [{SCALE_MIN:e}, {SCALE_MAX:e}], got {value:.6e}"
        )
    }
}

/// Checks that a parameter is finite and strictly positive, within the range
/// where its square and inverse square are representable
/// ([`scale`]: tiny or huge values would make the math NaN).
pub fn positive(name: &str, value: f64) -> Result<f64> {
    scale(name, value)
}

/// Smallest width whose inverse is finite, about `5.56e-309`: the double just above
/// `1 / f64::MAX`, whose own inverse rounds to infinity.
pub const INVERTIBLE_MIN: f64 = f64::from_bits((1.0 / f64::MAX).to_bits() + 1);

/// Checks a finite width `> 0` whose inverse is finite (`>= INVERTIBLE_MIN`): the
/// bound of a map that only multiplies by `1 / value` (the Taylor features).
pub fn invertible(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 && (1.0 / value).is_finite() {
        Ok(value)
    } else {
        param_err!("{name} must be finite and > 0 with a finite inverse (>= {INVERTIBLE_MIN:e}), got {value:.6e}")
    }
}

/// Checks that a parameter is finite and non-negative (at most [`SCALE_MAX`]).
pub fn non_negative(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && (0.0..=SCALE_MAX).contains(&value) {
        Ok(value)
    } else {
        param_err!("{name} must be a finite number in [0, {:e}], got {value:.6e}", SCALE_MAX)
    }
}
