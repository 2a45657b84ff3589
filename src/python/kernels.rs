//! Kernel Gram matrices for `kernelstream.kernels` (Python kernel objects are
//! small immutable classes that call this).
use crate::kernels::Kernel;
use crate::python::errors::IntoPyResult;
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
    let k = Kernel::from_spec(name, &params).py()?;
    let (xs, n, d) = crate::python::convert::mat2(&x);
    let (ys, m, d2) = crate::python::convert::mat2(&y);
    if d != d2 {
        return Err(crate::python::errors::to_py(crate::KsError::Input(format!(
            "X has {d} columns but Y has {d2}"
        ))));
    }
    if let Some(v) = xs.iter().chain(ys.iter()).find(|v| !v.is_finite()) {
        return Err(crate::python::errors::to_py(crate::KsError::Input(format!(
            "kernel inputs must be finite, got {v}"
        ))));
    }
    let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
    let g = py.detach(|| k.gram(xs, ys, d));
    let rows: Vec<Vec<f64>> =
        if m == 0 { vec![vec![]; n] } else { g.chunks(m).map(|c| c.to_vec()).collect() };
    PyArray2::from_vec2(py, &rows)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kernel_gram, m)?)
}
