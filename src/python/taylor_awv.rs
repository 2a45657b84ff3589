//! Binding of [`crate::learners::TaylorAwv`].
use crate::learners::TaylorAwv;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(module = "kernelstream._core", name = "TaylorAWV")]
pub struct PyTaylorAwv {
    pub inner: TaylorAwv,
}

#[pymethods]
impl PyTaylorAwv {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        Ok(PyTaylorAwv { inner: TaylorAwv::new(&p)? })
    }

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

crate::learner_protocol!(PyTaylorAwv, TaylorAwv);
crate::multi_output_protocol!(PyTaylorAwv);
