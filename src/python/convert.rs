//! NumPy <-> slice conversion. Contiguous float64 arrays are borrowed without a
//! copy; anything else is copied once into row-major order.

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use std::borrow::Cow;

/// A 1-D float64 array as a slice.
pub fn vec1<'a>(a: &'a PyReadonlyArray1<'_, f64>) -> Cow<'a, [f64]> {
    match a.as_slice() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(a.as_array().iter().copied().collect()),
    }
}

/// A 2-D float64 array as a row-major slice with its shape `(n, d)`.
pub fn mat2<'a>(a: &'a PyReadonlyArray2<'_, f64>) -> (Cow<'a, [f64]>, usize, usize) {
    let shape = a.shape();
    let (n, d) = (shape[0], shape[1]);
    let data = match a.as_slice() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(a.as_array().iter().copied().collect()),
    };
    (data, n, d)
}

/// `X` and `Y` row-major with `(n, d, K)`.
pub type XY<'a> = (Cow<'a, [f64]>, Cow<'a, [f64]>, usize, usize, usize);

/// `X` (`n x d`) and `Y` (`n x K`) as row-major slices with `(n, d, K)`; refused
/// when their numbers of rows differ.
pub fn xy_mat2<'a>(
    x: &'a PyReadonlyArray2<'_, f64>,
    y: &'a PyReadonlyArray2<'_, f64>,
) -> crate::Result<XY<'a>> {
    let (xs, n, d) = mat2(x);
    let (ys, ny, k) = mat2(y);
    if ny != n {
        return Err(crate::KsError::Input(format!("X has {n} rows but Y has {ny}")));
    }
    Ok((xs, ys, n, d, k))
}

/// A row-major buffer of `rows x cols` values as a 2-D NumPy array (the one way the
/// bindings return matrices).
pub fn matrix<'py>(
    py: Python<'py>,
    data: Vec<f64>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    if rows.checked_mul(cols) != Some(data.len()) {
        return Err(crate::KsError::Internal(format!(
            "a {rows} x {cols} matrix cannot hold {} values",
            data.len()
        ))
        .into());
    }
    PyArray1::from_vec(py, data).reshape([rows, cols])
}

/// A real-number argument: a Python int or float (not a bool); anything else raises
/// `ParameterError` (PyO3 adds a note naming the argument). Only the type is checked
/// here: the value is checked once, by the core's constructor.
#[derive(Clone, Copy, Debug)]
pub struct Real(pub f64);

impl<'a, 'py> FromPyObject<'a, 'py> for Real {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let shown = || obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            return Err(
                crate::KsError::Parameter(format!("expected a number, got {}", shown())).into()
            );
        }
        obj.extract::<f64>().map(Real).map_err(|_| {
            crate::KsError::Parameter(format!("expected a number, got {}", shown())).into()
        })
    }
}
