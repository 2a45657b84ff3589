//! Binding of [`crate::samplers::Kors`] (the Python face is `kernelstream.samplers.KORS`).
use crate::kernels::Kernel;
use crate::samplers::{Kors, KorsWeights};
use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

#[pyclass(module = "kernelstream._core", name = "KORS")]
pub struct PyKors {
    pub inner: Kors,
}

/// Dictionary points as an `(m, d)` array (`(0, d)` or `(0, 0)` when empty).
pub fn points_array<'py>(
    py: Python<'py>,
    pts: &[f64],
    m: usize,
    d: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    crate::python::convert::matrix(py, pts.to_vec(), m, d.unwrap_or(0))
}

#[pymethods]
impl PyKors {
    #[new]
    #[pyo3(signature = (kernel_name, kernel_params, mu, eps, beta, weights, seed))]
    fn new(
        kernel_name: &str,
        kernel_params: Vec<f64>,
        mu: f64,
        eps: f64,
        beta: f64,
        weights: &str,
        seed: u64,
    ) -> PyResult<Self> {
        let kernel = Kernel::from_spec(kernel_name, &kernel_params)?;
        let w = KorsWeights::from_name(weights)?;
        Ok(PyKors { inner: Kors::new(kernel, mu, eps, beta, w, seed)? })
    }

    /// One step: returns `(added, p_t, residual)`.
    fn step(&mut self, x: PyReadonlyArray1<'_, f64>) -> PyResult<(bool, f64, f64)> {
        let x = crate::python::convert::vec1(&x);
        let s = self.inner.step_full(&x)?;
        Ok((s.added, s.prob, s.residual))
    }

    /// Steps over the rows of `X`; returns the added flags.
    fn step_many(&mut self, x: numpy::PyReadonlyArray2<'_, f64>) -> PyResult<Vec<bool>> {
        let (xs, n, d) = crate::python::convert::mat2(&x);
        // Validate every row first so that a bad row leaves the sampler untouched.
        for row in xs.chunks_exact(d.max(1)).take(n) {
            self.inner.check_point(row)?;
        }
        let mut out = Vec::with_capacity(n);
        for row in xs.chunks_exact(d.max(1)).take(n) {
            out.push(self.inner.step(row)?);
        }
        Ok(out)
    }

    /// Inclusion probability a step on `x` would use (pure).
    fn probability(&self, x: PyReadonlyArray1<'_, f64>) -> PyResult<f64> {
        let x = crate::python::convert::vec1(&x);
        Ok(self.inner.probability(&x)?)
    }

    #[getter]
    fn size(&self) -> usize {
        self.inner.size()
    }
    #[getter]
    fn n_seen(&self) -> u64 {
        self.inner.n_seen()
    }
    #[getter]
    fn input_dim(&self) -> Option<usize> {
        self.inner.input_dim()
    }
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_array(py, self.inner.points(), self.inner.size(), self.inner.input_dim())
    }
    #[getter]
    fn indices(&self) -> Vec<u64> {
        self.inner.indices().to_vec()
    }
    #[getter]
    fn probabilities(&self) -> Vec<f64> {
        self.inner.probabilities().to_vec()
    }
    #[getter]
    fn weights(&self) -> Vec<f64> {
        self.inner.weights().to_vec()
    }
    /// `(W K W + mu I)^{-1}` (dense).
    fn minv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let m = self.inner.size();
        crate::python::convert::matrix(py, self.inner.minv_dense(), m, m)
    }

    fn _state_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = crate::python::protocol::dump(&self.inner)?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn _set_state_bytes(&mut self, data: &[u8]) -> PyResult<()> {
        self.inner = crate::python::protocol::load::<Kors>(data, &self.inner)?;
        Ok(())
    }

    /// The format version of this class's pickled state.
    #[staticmethod]
    fn _state_version() -> u32 {
        <Kors as crate::state::StateVersion>::STATE_VERSION
    }

    /// Takes the state of `fresh` if this sampler has seen no point (`set_params`:
    /// the check and the swap happen under this object's borrow).
    fn _adopt(&mut self, mut fresh: PyRefMut<'_, Self>) -> PyResult<()> {
        let n = self.inner.n_seen();
        if n != 0 {
            return Err(crate::KsError::Parameter(format!(
                "set_params on a sampler that has seen {n} points: parameters can only \
                 change before it runs (build a new object instead)"
            ))
            .into());
        }
        std::mem::swap(&mut self.inner, &mut fresh.inner);
        Ok(())
    }

    fn __copy__(&self) -> Self {
        PyKors { inner: self.inner.clone() }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKors>()
}
