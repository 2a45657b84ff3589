//! Binding of [`crate::learners::RffAwv`].
use crate::features::rff::{RandomFourier, RffVariant};
use crate::features::FeatureMap;
use crate::kernels::Kernel;
use crate::learners::RffAwv;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;

/// The drawn frequencies of a feature map as an `(m, d)` array.
pub fn omega_array<'py>(py: Python<'py>, f: &RandomFourier) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let d = f.input_dim();
    crate::python::convert::matrix(py, f.omega().to_vec(), f.omega().len() / d.max(1), d)
}

/// Kernels received from Python as `[(name, [params]), ...]`.
pub fn kernels_from_specs(specs: Vec<(String, Vec<f64>)>) -> crate::Result<Vec<Kernel>> {
    specs.iter().map(|(n, p)| Kernel::from_spec(n, p)).collect()
}

#[pyclass(module = "kernelstream._core", name = "RFFAWV")]
pub struct PyRffAwv {
    pub inner: RffAwv,
}

#[pymethods]
impl PyRffAwv {
    #[new]
    #[pyo3(signature = (kernel_name, kernel_params, n_features, lam, features, ridge, seed, block_size, gamma))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        kernel_name: &str,
        kernel_params: Vec<f64>,
        n_features: usize,
        lam: f64,
        features: &str,
        ridge: bool,
        seed: u64,
        block_size: Option<usize>,
        gamma: f64,
    ) -> PyResult<Self> {
        let k = Kernel::from_spec(kernel_name, &kernel_params)?;
        let v = RffVariant::from_name(features)?;
        let inner = RffAwv::new(k, n_features, lam, v, ridge, seed)?
            .with_block_size(block_size)?
            .with_gamma(gamma)?;
        Ok(PyRffAwv { inner })
    }

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

crate::learner_protocol!(PyRffAwv, RffAwv);
crate::multi_output_protocol!(PyRffAwv);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRffAwv>()
}
