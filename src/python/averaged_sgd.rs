//! Binding of [`crate::learners::AveragedKernelSgd`] (projection paper, App. E.1).
use crate::learners::AveragedKernelSgd;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(module = "kernelstream._core", name = "AveragedKernelSGD")]
pub struct PyAveragedKernelSgd {
    pub inner: AveragedKernelSgd,
}

#[pymethods]
impl PyAveragedKernelSgd {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        Ok(PyAveragedKernelSgd { inner: AveragedKernelSgd::new(&p)? })
    }

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

crate::learner_protocol!(PyAveragedKernelSgd, AveragedKernelSgd);
