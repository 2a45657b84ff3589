//! Python methods beyond the learner protocol for the binding of [`crate::learners::Fogd`]
//! and [`crate::learners::Nogd`]; the class itself is generated (`super::classes`).
use super::classes::Fogd as PyFogd;
use super::classes::Nogd as PyNogd;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

#[pymethods]
impl PyFogd {
    /// `z(x)` (None before the first call fixes `d`).
    fn features<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
    ) -> Option<Bound<'py, PyArray1<f64>>> {
        let x = crate::python::convert::vec1(&x);
        self.inner.features(&x).map(|z| PyArray1::from_vec(py, z))
    }

    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.inner.weights().map(|w| PyArray1::from_slice(py, w))
    }

    #[getter]
    fn frequencies<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.inner.frequencies().map(|w| PyArray1::from_slice(py, w))
    }
}

#[pymethods]
impl PyNogd {
    #[getter]
    fn n_support(&self) -> usize {
        self.inner.n_support()
    }

    #[getter]
    fn embedded(&self) -> bool {
        self.inner.embedded()
    }

    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank()
    }
}
