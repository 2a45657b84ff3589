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
