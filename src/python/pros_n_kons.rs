//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::ProsNKons`] (PROS-N-KONS, CON-KONS, B-KONS); the class itself is
//! generated (`super::classes`).
use super::classes::ProsNKons as PyProsNKons;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// (points (m, d), 0-based round indices, probabilities, weights) of a KORS dictionary.
type Dictionary<'py> =
    (Bound<'py, PyArray2<f64>>, Vec<u64>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

fn square<'py>(py: Python<'py>, v: Vec<f64>, r: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
    crate::python::convert::matrix(py, v, r, r)
}

#[pymethods]
impl PyProsNKons {
    #[getter]
    fn dictionary_size(&self) -> usize {
        self.inner.dictionary_size()
    }
    /// Number of KORS calls so far (B-KONS stops calling KORS at its budget).
    #[getter]
    fn kors_calls(&self) -> u64 {
        self.inner.kors().n_seen()
    }
    #[getter]
    fn n_resets(&self) -> u64 {
        self.inner.n_resets()
    }
    #[getter]
    fn curvature(&self) -> f64 {
        self.inner.curvature()
    }
    /// Newton step multiplier `eta`.
    #[getter]
    fn eta(&self) -> f64 {
        self.inner.params().eta
    }
    /// KORS dictionary: (points (m, d), 0-based round indices, probabilities, weights).
    fn dictionary<'py>(&self, py: Python<'py>) -> PyResult<Dictionary<'py>> {
        let k = self.inner.kors();
        let m = k.size();
        let d = k.points().len().checked_div(m).unwrap_or(k.input_dim().unwrap_or(0));
        let pts = crate::python::convert::matrix(py, k.points().to_vec(), m, d)?;
        Ok((
            pts,
            k.indices().to_vec(),
            PyArray1::from_slice(py, k.probabilities()),
            PyArray1::from_slice(py, k.weights()),
        ))
    }
    /// `phi(x)` in the current embedding.
    fn embed<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = crate::python::convert::vec1(&x);
        if let Some(d) = crate::learners::OnlineLearner::input_dim(&self.inner) {
            if x.len() != d {
                return Err(PyErr::from(crate::KsError::Input(format!(
                    "x has {} features, expected {d}",
                    x.len()
                ))));
            }
        }
        Ok(PyArray1::from_vec(py, self.inner.embed(&x)))
    }
    /// `phi(x)` for every row (n, r), GIL released.
    fn embed_many<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (xs, n, d) = crate::python::convert::mat2(&x);
        if let Some(d0) = crate::learners::OnlineLearner::input_dim(&self.inner) {
            if d != d0 {
                return Err(PyErr::from(crate::KsError::Input(format!(
                    "X has {d} columns, expected {d0}"
                ))));
            }
        }
        let xs: &[f64] = &xs;
        let inner = &self.inner;
        let r = inner.embedding().map_or(0, |e| e.rank());
        let flat: Vec<f64> =
            py.detach(|| xs.chunks(d.max(1)).take(n).flat_map(|row| inner.embed(row)).collect());
        crate::python::convert::matrix(py, flat, n, r)
    }
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.weights())
    }
    #[getter]
    fn newton_point<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.newton_point())
    }
    #[getter]
    fn ainv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let r = self.inner.weights().len();
        square(py, self.inner.ainv_dense(), r)
    }
}
