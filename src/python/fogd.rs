//! Binding of [`crate::learners::Fogd`] and [`crate::learners::Nogd`].
use crate::learners::{Fogd, Nogd};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(module = "kernelstream._core", name = "FOGD")]
pub struct PyFogd {
    pub inner: Fogd,
}

#[pymethods]
impl PyFogd {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        Ok(PyFogd { inner: Fogd::new(&p)? })
    }

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

crate::learner_protocol!(PyFogd, Fogd);

#[pyclass(module = "kernelstream._core", name = "NOGD")]
pub struct PyNogd {
    pub inner: Nogd,
}

#[pymethods]
impl PyNogd {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        Ok(PyNogd { inner: Nogd::new(&p)? })
    }

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

crate::learner_protocol!(PyNogd, Nogd);
