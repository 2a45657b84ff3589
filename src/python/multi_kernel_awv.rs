//! Python methods beyond the learner protocol for the binding of
//! [`crate::learners::MultiKernelAwv`], [`crate::learners::Raker`] and
//! [`crate::learners::OmklGf`]; the class itself is generated (`super::classes`).
use super::classes::MultiKernelAwv as PyMultiKernelAwv;
use super::classes::OmklGf as PyOmklGf;
use super::classes::Raker as PyRaker;
use super::rff_awv::omega_array;
use crate::features::rff::RandomFourier;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;

fn nth_map(maps: Option<&[RandomFourier]>, j: usize) -> PyResult<Option<&RandomFourier>> {
    match maps {
        None => Ok(None),
        Some(m) => m.get(j).map(Some).ok_or_else(|| {
            PyErr::from(crate::KsError::Input(format!(
                "kernel index {j} out of range (have {})",
                m.len()
            )))
        }),
    }
}

#[pymethods]
impl PyMultiKernelAwv {
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(py, self.inner.weights()?))
    }

    /// Raw expert predictions for `x` as the next round.
    fn expert_predictions<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = crate::python::convert::vec1(&x);
        crate::stream::validate(&self.inner, &x, 1, x.len(), None)?;
        Ok(PyArray1::from_vec(py, self.inner.expert_predictions(&x)))
    }

    fn frequencies<'py>(
        &self,
        py: Python<'py>,
        j: usize,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        nth_map(self.inner.feature_maps(), j)?.map(|f| omega_array(py, f)).transpose()
    }

    /// The online protocol over the rows (GIL released); returns the raw expert
    /// predictions `(n, N)` made before each label.
    fn progressive_experts<'py>(
        &mut self,
        py: Python<'py>,
        x: numpy::PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (xs, n, d) = crate::python::convert::mat2(&x);
        let ys = crate::python::convert::vec1(&y);
        let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
        let inner = &mut self.inner;
        let nk = inner.n_kernels();
        let out = py.detach(|| inner.progressive_experts(xs, n, d, ys))?;
        crate::python::convert::matrix(py, out, n, nk)
    }

    fn offsets<'py>(
        &self,
        py: Python<'py>,
        j: usize,
    ) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        Ok(nth_map(self.inner.feature_maps(), j)?.map(|f| PyArray1::from_slice(py, f.offset())))
    }
}

#[pymethods]
impl PyRaker {
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.weights())
    }

    fn frequencies<'py>(
        &self,
        py: Python<'py>,
        j: usize,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        nth_map(self.inner.feature_maps(), j)?.map(|f| omega_array(py, f)).transpose()
    }
}

#[pymethods]
impl PyOmklGf {
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.weights())
    }

    /// Kernels of the graph the next round uses (None before the first round).
    #[getter]
    fn chosen(&self) -> Option<Vec<usize>> {
        self.inner.chosen().map(|c| c.to_vec())
    }

    fn frequencies<'py>(
        &self,
        py: Python<'py>,
        j: usize,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        nth_map(self.inner.feature_maps(), j)?.map(|f| omega_array(py, f)).transpose()
    }
}
