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
//! `From<KsError> for PyErr` lets binding code use `?` on core results.

use crate::error::KsError;
use pyo3::exceptions::{PyArithmeticError, PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

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

impl From<KsError> for PyErr {
    fn from(e: KsError) -> PyErr {
        Python::attach(|py| {
            let msg = e.to_string();
            match classes(py) {
                Ok(c) => {
                    let ty = match e {
                        KsError::Input(_) => &c.input,
                        KsError::Parameter(_) => &c.parameter,
                        KsError::Numerical(_) => &c.numerical,
                        KsError::Internal(_) => &c.internal,
                    };
                    PyErr::from_type(ty.bind(py).clone(), msg)
                }
                Err(err) => err,
            }
        })
    }
}
