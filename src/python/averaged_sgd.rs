//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::AveragedKernelSgd`] (projection paper, App. E.1); the class itself is
//! generated (`super::classes`).
use super::classes::AveragedKernelSgd as PyAveragedKernelSgd;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

#[pymethods]
impl PyAveragedKernelSgd {
    /// Coefficients `a_i` of the un-averaged iterate.
    #[getter]
    fn coefficients<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.coefficients().to_vec())
    }

    /// The un-averaged iterate `f~_n(x)`.
    fn predict_last(&self, x: PyReadonlyArray1<'_, f64>) -> PyResult<f64> {
        let x = crate::python::convert::vec1(&x);
        Ok(self.inner.predict_last(&x)?)
    }
}
