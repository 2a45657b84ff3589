//! Binding of [`crate::learners::KernelAwv`].
use crate::learners::KernelAwv;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(module = "kernelstream._core", name = "KernelAWV")]
pub struct PyKernelAwv {
    pub inner: KernelAwv,
}

#[pymethods]
impl PyKernelAwv {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        Ok(PyKernelAwv { inner: KernelAwv::new(&p)? })
    }

    /// `sum_t y_t^2 <A_t^{-1} phi_t, phi_t>`: the regret term of the PKAWV paper's proof of
    /// Prop. 1 (App. C.1, Theorem 9 with `P_t = I`); `<= B^2 sum_k log(1 + lambda_k(K)/lam)`.
    #[getter]
    fn regret_term(&self) -> f64 {
        self.inner.regret_term()
    }
}

crate::learner_protocol!(PyKernelAwv, KernelAwv);
crate::multi_output_protocol!(PyKernelAwv);
