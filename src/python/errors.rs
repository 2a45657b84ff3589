//! The exception classes of the API contract, created by the extension itself and
//! re-exported by `kernelstream.errors`:
//!
//! ```text
//! KernelstreamError(Exception)
//! ├── InputError(KernelstreamError, ValueError)        bad data
//! ├── ParameterError(KernelstreamError, ValueError)    bad constructor argument
//! ├── NumericalError(KernelstreamError, ArithmeticError)
//! └── InternalError(KernelstreamError, RuntimeError)   a broken invariant: a bug
//! ```
//!
//! `From<KsError> for PyErr` lets binding code use `?` on core results. A panic is
//! turned into `InternalError` at the boundary ([`guard`]); an interrupted call
//! (`KsError::Interrupted`) re-raises the `KeyboardInterrupt` the signal handler raised
//! ([`signal_hook`], [`stream_result`]).

use crate::error::KsError;
use pyo3::exceptions::{
    PyArithmeticError, PyException, PyKeyboardInterrupt, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::cell::RefCell;

struct Classes {
    base: Py<PyType>,
    input: Py<PyType>,
    parameter: Py<PyType>,
    numerical: Py<PyType>,
    internal: Py<PyType>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

/// `type(name, bases, {"__module__": "kernelstream.errors", "__doc__": doc})`.
fn make<'py>(
    py: Python<'py>,
    name: &str,
    doc: &str,
    bases: Bound<'py, PyTuple>,
) -> PyResult<Py<PyType>> {
    let dict = PyDict::new(py);
    dict.set_item("__module__", "kernelstream.errors")?;
    dict.set_item("__doc__", doc)?;
    let ty = py.get_type::<PyType>().call1((name, bases, dict))?;
    Ok(ty.cast_into::<PyType>()?.unbind())
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let base = make(
            py,
            "KernelstreamError",
            "Base class of every error raised by kernelstream.",
            PyTuple::new(py, [py.get_type::<PyException>()])?,
        )?;
        let sub = |name: &str, doc: &str, builtin: Bound<'_, PyType>| {
            make(py, name, doc, PyTuple::new(py, [base.bind(py).clone(), builtin])?)
        };
        Ok(Classes {
            input: sub(
                "InputError",
                "Bad data: wrong shape or type, NaN or infinity, empty input, a bad label, \
                 a corrupt state.",
                py.get_type::<PyValueError>(),
            )?,
            parameter: sub(
                "ParameterError",
                "A bad constructor argument or an impossible parameter combination.",
                py.get_type::<PyValueError>(),
            )?,
            numerical: sub(
                "NumericalError",
                "A numerical failure that could not be repaired (names the quantity and what \
                 was tried).",
                py.get_type::<PyArithmeticError>(),
            )?,
            internal: sub(
                "InternalError",
                "A broken internal invariant: a bug in kernelstream, please report it.",
                py.get_type::<PyRuntimeError>(),
            )?,
            base,
        })
    })
}

/// Adds the exception classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let c = classes(py)?;
    m.add("KernelstreamError", c.base.bind(py))?;
    m.add("InputError", c.input.bind(py))?;
    m.add("ParameterError", c.parameter.bind(py))?;
    m.add("NumericalError", c.numerical.bind(py))?;
    m.add("InternalError", c.internal.bind(py))?;
    Ok(())
}

thread_local! {
    /// The exception raised by a signal handler during a poll, re-raised by `From`.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The hook of [`crate::interrupt`]: takes the GIL briefly and runs Python's signal
/// handlers; an exception they raise (Ctrl-C: `KeyboardInterrupt`) is kept for `From`.
pub fn signal_hook() -> bool {
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            true
        }
    })
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
            let err = PyErr::from(e);
            let v = err.value(py);
            let _ = v.setattr("rounds_completed", done);
            if let Some(p) = preds {
                let _ = v.setattr("predictions", numpy::PyArray1::from_slice(py, &p[..done]));
            }
            Err(err)
        }
        Err(e) => Err(e.into()),
    }
}

/// [`stream_result`] of a call with `K` outputs: `predictions` of the completed rounds
/// is `(done, K)`.
pub fn stream_result_multi(
    py: Python<'_>,
    res: crate::Result<()>,
    done: usize,
    k: usize,
    preds: &[f64],
) -> PyResult<()> {
    match res {
        Err(e @ KsError::Interrupted(_)) => {
            let err = PyErr::from(e);
            let v = err.value(py);
            let _ = v.setattr("rounds_completed", done);
            let kept =
                preds.get(..done * k).map(|p| super::convert::matrix(py, p.to_vec(), done, k));
            if let Some(Ok(m)) = kept {
                let _ = v.setattr("predictions", m);
            }
            Err(err)
        }
        other => stream_result(py, other, done, None),
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
            Err(KsError::Internal(format!(
                "internal error in kernelstream (please report it): {what}; the object may be \
                 inconsistent, rebuild it"
            ))
            .into())
        }
    }
}

impl From<KsError> for PyErr {
    fn from(e: KsError) -> PyErr {
        if let KsError::Interrupted(msg) = &e {
            return PENDING
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| PyKeyboardInterrupt::new_err(msg.clone()));
        }
        Python::attach(|py| {
            let msg = e.to_string();
            match classes(py) {
                Ok(c) => {
                    let ty = match e {
                        KsError::Input(_) => &c.input,
                        KsError::Parameter(_) => &c.parameter,
                        KsError::Numerical(_) => &c.numerical,
                        KsError::Internal(_) => &c.internal,
                        KsError::Interrupted(_) => &c.base, // returned above
                    };
                    PyErr::from_type(ty.bind(py).clone(), msg)
                }
                Err(err) => err,
            }
        })
    }
}
