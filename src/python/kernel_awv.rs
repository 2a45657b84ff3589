//! Binding of [`crate::learners::KernelAwv`].
use crate::kernels::Kernel;
use crate::learners::KernelAwv;
use pyo3::prelude::*;

#[pyclass(module = "kernelstream._core", name = "KernelAWV")]
pub struct PyKernelAwv {
    pub inner: KernelAwv,
}

#[pymethods]
impl PyKernelAwv {
    #[new]
    #[pyo3(signature = (kernel_name, kernel_params, lam, ridge, max_size))]
    fn new(
        kernel_name: &str,
        kernel_params: Vec<f64>,
        lam: f64,
        ridge: bool,
        max_size: usize,
    ) -> PyResult<Self> {
        let kernel = Kernel::from_spec(kernel_name, &kernel_params)?;
        Ok(PyKernelAwv { inner: KernelAwv::new(kernel, lam, ridge, max_size)? })
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKernelAwv>()
}
