//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::NystromAwv`]; the class itself is generated (`super::classes`).
use super::classes::NystromAwv as PyNystromAwv;
use crate::learners::OnlineLearner;
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pymethods]
impl PyNystromAwv {
    /// Forecaster dictionary points `(m, d)`.
    #[getter]
    fn dictionary_points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let m = self.inner.size();
        let d = self
            .inner
            .centers()
            .len()
            .checked_div(m)
            .unwrap_or_else(|| self.inner.input_dim().unwrap_or(0));
        crate::python::kors::points_array(py, self.inner.centers(), m, Some(d))
    }

    /// Round index of each dictionary point (-1: given beforehand).
    #[getter]
    fn dictionary_indices(&self) -> Vec<i64> {
        self.inner.center_rounds().iter().map(|r| r.map_or(-1, |v| v as i64)).collect()
    }

    /// KORS probability and weight of each forecaster dictionary point (NaN for a fixed dictionary).
    #[getter]
    fn dictionary_probabilities_weights(&self) -> (Vec<f64>, Vec<f64>) {
        let rounds = self.inner.center_rounds();
        match self.inner.kors() {
            None => (vec![f64::NAN; rounds.len()], vec![f64::NAN; rounds.len()]),
            Some(k) => {
                let mut p = Vec::with_capacity(rounds.len());
                let mut w = Vec::with_capacity(rounds.len());
                for r in rounds {
                    match r.and_then(|r| k.indices().binary_search(&r).ok()) {
                        Some(i) => {
                            p.push(k.probabilities()[i]);
                            w.push(k.weights()[i]);
                        }
                        None => {
                            p.push(f64::NAN);
                            w.push(f64::NAN);
                        }
                    }
                }
                (p, w)
            }
        }
    }

    /// KORS dictionary size (>= the forecaster's when insertions were refused).
    #[getter]
    fn kors_size(&self) -> usize {
        self.inner.kors().map_or(0, |k| k.size())
    }

    /// Counts of insertions and numerical repairs (refused insertions, refactorisations,
    /// jitters), and the fixed dictionary's jitter.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.stats();
        let d = PyDict::new(py);
        d.set_item("insertions", s.insertions)?;
        d.set_item("refused_insertions", s.refused_insertions)?;
        d.set_item("refactorizations", s.refactorizations)?;
        d.set_item("jitters", s.jitters)?;
        d.set_item("fixed_jitter", self.inner.fixed_jitter())?;
        Ok(d)
    }

    /// `alpha = A_t^{-1} q_t` after the last round.
    fn alpha<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.alpha())
    }
}
