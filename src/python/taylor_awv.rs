//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::TaylorAwv`]; the class itself is generated (`super::classes`).
use super::classes::TaylorAwv as PyTaylorAwv;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

#[pymethods]
impl PyTaylorAwv {
    /// Taylor features `phi(x)` of one input.
    fn features<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = crate::python::convert::vec1(&x);
        Ok(PyArray1::from_vec(py, self.inner.features(&x)?))
    }

    /// `v_t^T A_t^{-1} v_t` of the last round.
    #[getter]
    fn last_leverage(&self) -> f64 {
        self.inner.engine().map_or(0.0, |e| e.last_leverage())
    }

    /// `sum_t y_t^2 v_t^T A_t^{-1} v_t` (regret diagnostic: PKAWV paper, proof of Proposition 1).
    #[getter]
    fn regret_term(&self) -> f64 {
        self.inner.engine().map_or(0.0, |e| e.regret_term())
    }
}
