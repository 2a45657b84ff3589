//! Binding of [`crate::calibration::SoftmaxCalibrator`]: `predict(S)`, `learn(S, labels)`,
//! `progressive(S, labels)` (GIL released), `add_class()`, state bytes for pickling.
//! Scores are `(n, K)` float arrays, labels class indices `0..K`.
use crate::calibration::SoftmaxCalibrator;
use crate::python::convert::{mat2, matrix, vec1};
use crate::python::errors::guard;
use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

#[pyclass(module = "kernelstream._core", name = "SoftmaxCalibrator")]
pub struct PySoftmaxCalibrator {
    pub inner: SoftmaxCalibrator,
}

fn labels(l: &PyReadonlyArray1<'_, i64>) -> crate::Result<Vec<usize>> {
    l.as_array()
        .iter()
        .map(|&v| {
            usize::try_from(v).map_err(|_| {
                crate::KsError::Input(format!("label {v} is not a class index (0, 1, ...)"))
            })
        })
        .collect()
}

#[pymethods]
impl PySoftmaxCalibrator {
    #[new]
    #[pyo3(signature = (lam, gamma, binning))]
    fn new(lam: f64, gamma: f64, binning: bool) -> PyResult<Self> {
        Ok(Self { inner: SoftmaxCalibrator::new(lam, gamma, binning)? })
    }

    /// The probabilities for each row of scores (state unchanged).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        s: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        guard(|| {
            let (ss, n, k) = mat2(&s);
            self.inner.check_width(k)?;
            let mut out = crate::limits::try_zeros("the probabilities", ss.len())?;
            for (row, o) in ss.chunks_exact(k).zip(out.chunks_exact_mut(k)) {
                self.inner.predict(row, o)?;
            }
            matrix(py, out, n, k)
        })
    }

    /// Each row's probabilities before its label, then the update; all checked first.
    fn progressive<'py>(
        &mut self,
        py: Python<'py>,
        s: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        guard(|| {
            let (ss, n, k) = mat2(&s);
            let ys = labels(&y)?;
            let ss: &[f64] = &ss;
            let inner = &mut self.inner;
            let before = inner.n_seen();
            let mut out = Vec::new();
            let res = py.detach(|| inner.progressive_into(ss, k, &ys, &mut out));
            let done = (self.inner.n_seen() - before) as usize;
            crate::python::errors::stream_result(py, res, done, None)?;
            matrix(py, out, n, k)
        })
    }

    /// The probabilities of one row of scores, as a list (state unchanged): the
    /// serving loop's `predict`, without a matrix either way.
    fn _predict_row(&self, s: PyReadonlyArray1<'_, f64>) -> PyResult<Vec<f64>> {
        guard(|| {
            let s = vec1(&s);
            let mut out = vec![0.0; s.len()];
            self.inner.predict(&s, &mut out)?;
            Ok(out)
        })
    }

    /// One round on one row of scores and its label (`progressive` of one row, the
    /// probabilities not returned); checked first, unchanged if refused.
    fn _learn_row(&mut self, s: PyReadonlyArray1<'_, f64>, label: i64) -> PyResult<()> {
        guard(|| {
            let s = vec1(&s);
            self.inner.check_width(s.len())?;
            let label = usize::try_from(label).map_err(|_| {
                crate::KsError::Input(format!("label {label} is not a class index (0, 1, ...)"))
            })?;
            let mut p = vec![0.0; s.len()];
            Ok(self.inner.predict_learn(&s, label, &mut p)?)
        })
    }

    /// One more class (its scores come last from now on).
    fn add_class(&mut self) -> PyResult<()> {
        guard(|| Ok(self.inner.add_class()?))
    }

    #[getter]
    fn n_classes(&self) -> usize {
        self.inner.n_classes()
    }

    #[getter]
    fn n_seen(&self) -> u64 {
        self.inner.n_seen()
    }

    /// The slope `a`.
    #[getter]
    fn slope(&self) -> f64 {
        self.inner.slope()
    }

    /// The second stage's model weights (the first stage, then the binnings; `None`
    /// without the stage).
    #[getter]
    fn model_weights(&self) -> Option<Vec<f64>> {
        self.inner.binning().map(|b| b.weights())
    }

    /// `A_t`, the accumulated curvature.
    #[getter]
    fn curvature(&self) -> f64 {
        self.inner.curvature()
    }

    fn _state_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let bytes = crate::python::protocol::dump(&self.inner)?;
        Ok(pyo3::types::PyBytes::new(py, &bytes))
    }

    fn _set_state_bytes(&mut self, data: &[u8]) -> PyResult<()> {
        guard(|| {
            self.inner = crate::python::protocol::load::<SoftmaxCalibrator>(data, &self.inner)?;
            Ok(())
        })
    }

    #[staticmethod]
    fn _state_version() -> u32 {
        <SoftmaxCalibrator as crate::state::StateVersion>::STATE_VERSION
    }

    fn __copy__(&self) -> Self {
        Self { inner: self.inner.clone() }
    }

    fn _adopt(&mut self, mut fresh: PyRefMut<'_, Self>) -> PyResult<()> {
        let n = self.inner.n_seen();
        if n != 0 {
            return Err(crate::KsError::Parameter(format!(
                "set_params on a calibrator that has seen {n} rounds: build a new object"
            ))
            .into());
        }
        std::mem::swap(&mut self.inner, &mut fresh.inner);
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySoftmaxCalibrator>()
}
