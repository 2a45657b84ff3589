//! Binding of [`crate::learners::Fogd`] and [`crate::learners::Nogd`].
use crate::kernels::Kernel;
use crate::learners::{Fogd, Loss, Nogd};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

#[pyclass(module = "kernelstream._core", name = "FOGD")]
pub struct PyFogd {
    pub inner: Fogd,
}

#[pymethods]
impl PyFogd {
    #[new]
    #[pyo3(signature = (kernel_name, kernel_params, n_features, lr, loss, epsilon, seed))]
    fn new(
        kernel_name: &str,
        kernel_params: Vec<f64>,
        n_features: usize,
        lr: f64,
        loss: &str,
        epsilon: f64,
        seed: u64,
    ) -> PyResult<Self> {
        let kernel = Kernel::from_spec(kernel_name, &kernel_params)?;
        let loss = Loss::from_name(loss)?;
        Ok(PyFogd { inner: Fogd::new(kernel, n_features, lr, loss, epsilon, seed)? })
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
    #[pyo3(signature = (kernel_name, kernel_params, budget, rank, lr, loss, epsilon))]
    fn new(
        kernel_name: &str,
        kernel_params: Vec<f64>,
        budget: usize,
        rank: Option<usize>,
        lr: f64,
        loss: &str,
        epsilon: f64,
    ) -> PyResult<Self> {
        let kernel = Kernel::from_spec(kernel_name, &kernel_params)?;
        let loss = Loss::from_name(loss)?;
        Ok(PyNogd { inner: Nogd::new(kernel, budget, rank, lr, loss, epsilon)? })
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFogd>()?;
    m.add_class::<PyNogd>()
}
