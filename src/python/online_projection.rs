//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::OnlineProjection`] (Zhang and Simon, Algorithm 2); the class itself
//! is generated (`super::classes`).
use super::classes::OnlineProjection as PyOnlineProjection;
use numpy::{PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;

fn square<'py>(py: Python<'py>, v: Vec<f64>, p: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
    crate::python::convert::matrix(py, v, p, p)
}

#[pymethods]
impl PyOnlineProjection {
    /// Coefficients `theta` of the active columns.
    #[getter]
    fn coefficients<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.coefficients())
    }

    /// Descriptions of the active columns.
    #[getter]
    fn active_basis(&self) -> Vec<String> {
        self.inner.active_basis()
    }

    #[getter]
    fn n_units(&self) -> usize {
        self.inner.n_units()
    }

    #[getter]
    fn n_prefix(&self) -> usize {
        self.inner.n_prefix()
    }

    #[getter]
    fn is_ready(&self) -> bool {
        self.inner.is_ready()
    }

    /// (warm-up initialisations, drift refreshes, Schur-guard fallbacks).
    #[getter]
    fn counters(&self) -> (u64, u64, u64) {
        self.inner.counters()
    }

    /// Design matrix of the active columns at the rows of `X`.
    fn basis_matrix<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (xs, n, d) = crate::python::convert::mat2(&x);
        let m = self.inner.basis_matrix(&xs, d)?;
        let p = self.inner.coefficients().len();
        if p == 0 || n == 0 {
            return Ok(PyArray2::zeros(py, [n, p], false));
        }
        crate::python::convert::matrix(py, m, n, p)
    }

    /// `Phi = (Psi^T Psi)^{-1}` (empty during the warm-up).
    #[getter]
    fn phi<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let p = self.inner.coefficients().len();
        square(py, self.inner.phi_dense(), p)
    }

    /// The stored Gram matrix `G = Psi^T Psi`.
    #[getter]
    fn gram<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let p = self.inner.coefficients().len();
        square(py, self.inner.gram_dense(), p)
    }
}
