//! Maps core errors onto the exception classes of `kernelstream.errors`
//! (`InputError(ValueError)`, `ParameterError(ValueError)`, `NumericalError(ArithmeticError)`).

use crate::error::KsError;
use pyo3::exceptions::{PyArithmeticError, PyValueError};
use pyo3::prelude::*;

fn class_name(e: &KsError) -> &'static str {
    match e {
        KsError::Input(_) => "InputError",
        KsError::Parameter(_) => "ParameterError",
        KsError::Numerical(_) => "NumericalError",
    }
}

/// Converts a core error into the contract's Python exception.
pub fn to_py(e: KsError) -> PyErr {
    Python::attach(|py| {
        let msg = e.to_string();
        let made = py
            .import("kernelstream.errors")
            .and_then(|m| m.getattr(class_name(&e)))
            .and_then(|cls| cls.call1((msg.clone(),)));
        match made {
            Ok(obj) => PyErr::from_value(obj),
            // The pure-Python package is not importable (bare extension use): fall back
            // to the builtin base classes, which the contract's classes subclass.
            Err(_) => match e {
                KsError::Numerical(_) => PyArithmeticError::new_err(msg),
                _ => PyValueError::new_err(msg),
            },
        }
    })
}

/// `Result<T, KsError>` -> `PyResult<T>`.
pub trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for crate::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
