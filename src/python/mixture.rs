//! The methods beyond the protocol of the bindings of [`crate::mixture::Mixture`] (its
//! constructor too) and [`crate::mixture::AutoKernel`]; the classes are generated
//! (`super::classes`).
//! The experts arrive as the core objects of the Python learners (`learner._core`)
//! and are copied, state included, into the Rust mixture.
use super::aggregation::{PyAa, PyBoa, PyEwa, PyMlPoly, PyMlProd, PyVawMeta};
use super::classes::AutoKernel as PyAutoKernel;
use super::classes::Mixture as PyMixture;
use super::registry::any_learner;
use crate::aggregation::AnyAggregator;
use crate::mixture::{AutoKernel, Mixture, Trace, Traced};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The core rule inside a Python aggregator core object, copied.
fn any_rule(obj: &Bound<'_, PyAny>) -> PyResult<AnyAggregator> {
    macro_rules! try_as {
        ($($py:ty => $var:ident),* $(,)?) => {
            $(if let Ok(r) = obj.extract::<PyRef<'_, $py>>() {
                return Ok(AnyAggregator::$var(r.inner.clone()));
            })*
        };
    }
    try_as!(PyVawMeta => Vaw, PyEwa => Ewa, PyAa => Aa, PyBoa => Boa, PyMlPoly => MlPoly, PyMlProd => MlProd);
    Err(PyErr::from(crate::KsError::Parameter("rule must be a kernelstream aggregator".into())))
}

/// `(predictions, Z, W)` of a traced run.
type TraceArrays<'py> =
    (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);
/// An AutoKernel expert: `(taylor_degree, n_features, dictionary, sigma, lam)`.
type SpecTuple = (Option<usize>, usize, usize, f64, f64, f64, bool, bool, bool);
/// `(x_loc, x_scale, y_loc, y_scale, rho)`.
type ScaleTuple = (Vec<f64>, Vec<f64>, f64, f64, f64);

fn trace_arrays<'py>(py: Python<'py>, t: Trace, k: usize) -> PyResult<TraceArrays<'py>> {
    let n = t.predictions.len();
    let z = PyArray1::from_vec(py, t.experts).reshape([n, k])?;
    let w = PyArray1::from_vec(py, t.weights).reshape([n, k])?;
    Ok((PyArray1::from_vec(py, t.predictions), z, w))
}

/// The arrays of a traced run; on Ctrl-C the `KeyboardInterrupt` carries
/// `rounds_completed`, `predictions` and `trace` (the arrays of the completed rounds).
fn trace_result<'py>(
    py: Python<'py>,
    res: crate::Result<()>,
    t: Trace,
    k: usize,
) -> PyResult<TraceArrays<'py>> {
    let done = t.predictions.len();
    if let Err(err) = crate::python::errors::stream_result(py, res, done, Some(&t.predictions)) {
        if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            let _ = err.value(py).setattr("trace", trace_arrays(py, t, k)?);
        }
        return Err(err);
    }
    trace_arrays(py, t, k)
}

/// A learner's `progressive_trace(x, n, d, y, trace)`.
type TraceFn<L> = fn(&mut L, &[f64], usize, usize, &[f64], &mut Trace) -> crate::Result<()>;

/// The traced online protocol of a Mixture or an AutoKernel (GIL released): `run` is the
/// learner's `progressive_trace`, `experts` its expert count after the run.
fn traced<'py, L: Send>(
    py: Python<'py>,
    inner: &mut L,
    x: numpy::PyReadonlyArray2<'py, f64>,
    y: numpy::PyReadonlyArray1<'py, f64>,
    run: TraceFn<L>,
    experts: fn(&L) -> usize,
) -> PyResult<TraceArrays<'py>> {
    crate::python::errors::guard(|| {
        let (xs, n, d) = crate::python::convert::mat2(&x);
        let ys = crate::python::convert::vec1(&y);
        let mut t = Trace::default();
        let res = py.detach(|| {
            crate::interrupt::start();
            run(inner, &xs, n, d, &ys, &mut t)
        });
        trace_result(py, res, t, experts(inner))
    })
}

#[pymethods]
impl PyMixture {
    #[new]
    #[pyo3(signature = (experts, rule, **kwargs))]
    fn new(
        experts: Vec<Bound<'_, PyAny>>,
        rule: &Bound<'_, PyAny>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let p = crate::python::params::from_kwargs(kwargs)?;
        let experts = experts.iter().map(any_learner).collect::<PyResult<Vec<_>>>()?;
        Ok(PyMixture { inner: Mixture::with_params(experts, any_rule(rule)?, &p)? })
    }

    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.weights())
    }

    #[getter]
    fn n_experts(&self) -> usize {
        self.inner.n_experts()
    }

    fn expert_predictions<'py>(
        &self,
        py: Python<'py>,
        x: numpy::PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = crate::python::convert::vec1(&x);
        crate::stream::validate(&self.inner, &x, 1, x.len(), None)?;
        Ok(PyArray1::from_vec(py, self.inner.expert_predictions(&x)?))
    }

    /// The online protocol (GIL released) returning `(predictions, Z, W)`.
    fn progressive_trace<'py>(
        &mut self,
        py: Python<'py>,
        x: numpy::PyReadonlyArray2<'py, f64>,
        y: numpy::PyReadonlyArray1<'py, f64>,
    ) -> PyResult<TraceArrays<'py>> {
        traced(py, &mut self.inner, x, y, Mixture::progressive_trace, Mixture::n_experts)
    }
}

#[pymethods]
impl PyAutoKernel {
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.inner.mixture().map(|m| PyArray1::from_vec(py, m.weights()))
    }

    /// `(changes declared, successors promoted, successor alive)`; None without restarts.
    #[getter]
    fn restart_events(&self) -> Option<(u64, u64, bool)> {
        self.inner.restart().map(|r| (r.changes, r.promotions, r.successor().is_some()))
    }

    #[getter]
    fn n_experts(&self) -> usize {
        self.inner.n_experts()
    }

    /// `[(taylor_degree or None, n_features, dictionary, sigma, lam, gamma, linear,
    /// first_order, laplacian)]` in standardised units (`lam`: a constant-step expert's
    /// step; `sigma`: an L1 width for a Laplacian expert).
    #[getter]
    fn experts(&self) -> Option<Vec<SpecTuple>> {
        self.inner.specs().map(|s| {
            s.iter()
                .map(|e| {
                    let (d, n, m, s, lam, g) =
                        (e.taylor_degree, e.n_features, e.dictionary, e.sigma, e.lam, e.gamma);
                    (d, n, m, s, lam, g, e.linear, e.first_order, e.laplacian)
                })
                .collect()
        })
    }

    /// `(x_loc, x_scale, y_loc, y_scale, rho)` fixed by the warm-up.
    #[getter]
    fn scale(&self) -> Option<ScaleTuple> {
        self.inner
            .scaler()
            .map(|(s, rho)| (s.x_loc.clone(), s.x_scale.clone(), s.y_loc, s.y_scale, rho))
    }

    #[getter]
    fn warmup_expert_predictions<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let (Some(z), Some(m)) = (self.inner.warmup_expert_predictions(), self.inner.mixture())
        else {
            return Ok(None);
        };
        let k = m.n_experts();
        Ok(Some(PyArray1::from_slice(py, z).reshape([z.len() / k, k])?))
    }

    fn expert_predictions<'py>(
        &self,
        py: Python<'py>,
        x: numpy::PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        let x = crate::python::convert::vec1(&x);
        crate::stream::validate(&self.inner, &x, 1, x.len(), None)?;
        let (Some(m), Some((s, _))) = (self.inner.mixture(), self.inner.scaler()) else {
            return Ok(None);
        };
        let mut q = vec![0.0; x.len()];
        s.x_into(&x, &mut q);
        let z = m.expert_predictions(&q)?;
        Ok(Some(PyArray1::from_vec(py, z.into_iter().map(|v| s.y_back(v)).collect())))
    }

    fn progressive_trace<'py>(
        &mut self,
        py: Python<'py>,
        x: numpy::PyReadonlyArray2<'py, f64>,
        y: numpy::PyReadonlyArray1<'py, f64>,
    ) -> PyResult<TraceArrays<'py>> {
        traced(py, &mut self.inner, x, y, AutoKernel::progressive_trace, AutoKernel::n_experts)
    }
}
