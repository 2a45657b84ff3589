//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::KernelAwv`]; the class itself is generated (`super::classes`).
use super::classes::KernelAwv as PyKernelAwv;
use pyo3::prelude::*;

#[pymethods]
impl PyKernelAwv {
    /// `sum_t y_t^2 <A_t^{-1} phi_t, phi_t>`: the regret term of the PKAWV paper's proof of
    /// Prop. 1 (App. C.1, Theorem 9 with `P_t = I`); `<= B^2 sum_k log(1 + lambda_k(K)/lam)`.
    #[getter]
    fn regret_term(&self) -> f64 {
        self.inner.regret_term()
    }
}
