//! Maps core errors onto the exception classes of `kernelstream.errors`
//! (`InputError(ValueError)`, `ParameterError(ValueError)`, `NumericalError(ArithmeticError)`),
//! turns panics into `InternalError` ([`guard`]) and interrupts into the pending
//! `KeyboardInterrupt` ([`signal_hook`], [`stream_result`]).

use crate::error::KsError;
use pyo3::exceptions::{PyArithmeticError, PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::cell::RefCell;

fn class_name(e: &KsError) -> &'static str {
    match e {
        KsError::Input(_) => "InputError",
        KsError::Parameter(_) => "ParameterError",
        KsError::Numerical(_) => "NumericalError",
        KsError::Interrupted(_) => "KeyboardInterrupt",
    }
}

thread_local! {
    /// The exception raised by a signal handler during a poll, re-raised by `to_py`.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The hook of [`crate::interrupt`]: takes the GIL briefly and runs Python's signal
/// handlers; an exception they raise (Ctrl-C: `KeyboardInterrupt`) is kept for `to_py`.
pub fn signal_hook() -> bool {
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            true
        }
    })
}

/// Converts a core error into the contract's Python exception.
pub fn to_py(e: KsError) -> PyErr {
    if let KsError::Interrupted(msg) = &e {
        return PENDING
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| PyKeyboardInterrupt::new_err(msg.clone()));
    }
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

/// The result of a whole-stream call: an interrupt becomes the pending
/// `KeyboardInterrupt` with `rounds_completed` and (if given) `predictions` of the
/// completed rounds set on it.
pub fn stream_result(
    py: Python<'_>,
    res: crate::Result<()>,
    done: usize,
    preds: Option<&[f64]>,
) -> PyResult<()> {
    match res {
        Ok(()) => Ok(()),
        Err(e @ KsError::Interrupted(_)) => {
            let err = to_py(e);
            let v = err.value(py);
            let _ = v.setattr("rounds_completed", done);
            if let Some(p) = preds {
                let _ = v.setattr("predictions", numpy::PyArray1::from_slice(py, &p[..done]));
            }
            Err(err)
        }
        Err(e) => Err(to_py(e)),
    }
}

/// Runs `f`, turning a panic (a bug: nothing reachable from Python should panic)
/// into `kernelstream.InternalError` instead of unwinding into Python.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let msg = format!(
                "internal error in kernelstream (please report it): {what}; the object may be \
                 inconsistent, rebuild it"
            );
            Err(Python::attach(|py| {
                py.import("kernelstream.errors")
                    .and_then(|m| m.getattr("InternalError"))
                    .and_then(|cls| cls.call1((msg.clone(),)))
                    .map(PyErr::from_value)
                    .unwrap_or_else(|_| PyRuntimeError::new_err(msg))
            }))
        }
    }
}
