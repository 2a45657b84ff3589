//! Kernel Gram matrices for `kernelstream.kernels` (Python kernel objects are
//! small immutable classes that call this).
use crate::kernels::Kernel;
use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;

/// Gram matrix `K[i, j] = k(X[i], Y[j])` of the kernel `name(params)`.
#[pyfunction]
fn kernel_gram<'py>(
    py: Python<'py>,
    name: &str,
    params: Vec<f64>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let k = Kernel::from_spec(name, &params)?;
    let (xs, n, d) = crate::python::convert::mat2(&x);
    let (ys, m, d2) = crate::python::convert::mat2(&y);
    if d != d2 {
        return Err(PyErr::from(crate::KsError::Input(format!(
            "X has {d} columns but Y has {d2}"
        ))));
    }
    let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
    let g = py.detach(|| k.gram(xs, ys, d));
    crate::python::convert::matrix(py, g, n, m)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kernel_gram, m)?)
}
