//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::RffAwv`]; the class itself is generated (`super::classes`).
use super::classes::RffAwv as PyRffAwv;
use crate::features::rff::RandomFourier;
use crate::features::FeatureMap;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;

/// The drawn frequencies of a feature map as an `(m, d)` array.
pub fn omega_array<'py>(py: Python<'py>, f: &RandomFourier) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let d = f.input_dim();
    crate::python::convert::matrix(py, f.omega().to_vec(), f.omega().len() / d.max(1), d)
}

#[pymethods]
impl PyRffAwv {
    /// Frequencies `(m, d)` (None before the first round).
    #[getter]
    fn frequencies<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        self.inner.feature_map().map(|f| omega_array(py, f)).transpose()
    }

    /// Phases `b` (None before the first round; empty for "cossin").
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.inner.feature_map().map(|f| PyArray1::from_slice(py, f.offset()))
    }

    /// Features `Phi(x)` (None before the first round).
    fn features<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        let x = crate::python::convert::vec1(&x);
        Ok(self.inner.mapped(&x)?.map(|v| PyArray1::from_vec(py, v)))
    }

    /// Ridge weights `A_t^{-1} b_t` (None before the first round).
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.inner.engine().map(|e| PyArray1::from_vec(py, e.weights()))
    }
}
