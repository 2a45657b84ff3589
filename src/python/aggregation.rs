//! Bindings of the aggregation rules ([`crate::aggregation`]), one class per rule of the
//! table ([`crate::aggregation::RULES`]): the constructor `(n_experts, **params)` takes
//! the parameters the table lists for the rule ([`build`]), then `predict(z)`,
//! `update(z, y)`, `weights`, `progressive_predict(Z, y)` (GIL released), `n_seen`,
//! `n_experts`, state bytes for pickling. Every input is validated before any state
//! changes.
use crate::aggregation::{
    self, AggregatingAlgorithm, Aggregator, AnyAggregator, Boa, Ewa, MlPoly, MlProd, RuleParams,
    VawMeta, RULES,
};
use crate::python::errors::guard;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The rule of the table whose Python class is `class` over `n_experts` experts, with
/// the keyword parameters `kwargs` (those the table lists for the rule; the others are
/// refused, the ones not given take their declared defaults).
fn build(
    class: &str,
    n_experts: usize,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<AnyAggregator> {
    let Some(rule) = RULES.iter().find(|r| r.class == class) else {
        return Err(crate::KsError::Internal(format!("no rule of class {class}")).into());
    };
    for key in kwargs.into_iter().flat_map(|kw| kw.keys()) {
        let key: String = key.extract()?;
        if !rule.params.contains(&key.as_str()) {
            return Err(crate::KsError::Input(format!(
                "unknown parameter {key:?}; the parameters of {class} are {:?}",
                rule.params
            ))
            .into());
        }
    }
    let p: RuleParams = crate::python::params::from_kwargs(kwargs)?;
    Ok(AnyAggregator::from_spec(rule.name, n_experts, &p)?)
}

/// `set_params`' swap: `inner` takes the state of `fresh` (built from the new
/// parameters) if it has seen no data (`n_seen` rounds; `what` names it in the error),
/// else a `ParameterError` and nothing changes.
pub fn adopt_unseen<T>(inner: &mut T, fresh: &mut T, n_seen: u64, what: &str) -> PyResult<()> {
    if n_seen != 0 {
        return Err(crate::KsError::Parameter(format!(
            "set_params on {what} that has seen {n_seen} rounds: parameters can only \
             change before learning (build a new object instead)"
        ))
        .into());
    }
    std::mem::swap(inner, fresh);
    Ok(())
}

/// The class `$py_ty` (Python name `$class`) of the rule `$core_ty`, the table's variant
/// `$variant`: its constructor ([`build`]) and the rules' protocol.
macro_rules! aggregator_class {
    ($py_ty:ident, $class:literal, $core_ty:ty, $variant:ident) => {
        #[pyclass(module = "kernelstream._core", name = $class)]
        pub struct $py_ty {
            pub inner: $core_ty,
        }

        #[pymethods]
        impl $py_ty {
            #[new]
            #[pyo3(signature = (n_experts, **params))]
            fn new(n_experts: usize, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                match build($class, n_experts, params)? {
                    AnyAggregator::$variant(inner) => Ok(Self { inner }),
                    other => Err(crate::KsError::Internal(format!(
                        "{} built for {}",
                        other.name(),
                        $class
                    ))
                    .into()),
                }
            }

            fn predict(&self, z: numpy::PyReadonlyArray1<'_, f64>) -> PyResult<f64> {
                guard(|| {
                    let z = crate::python::convert::vec1(&z);
                    Ok(aggregation::predict_checked(&self.inner, &z)?)
                })
            }

            fn update(&mut self, z: numpy::PyReadonlyArray1<'_, f64>, y: f64) -> PyResult<()> {
                guard(|| {
                    let z = crate::python::convert::vec1(&z);
                    Ok(aggregation::update_checked(&mut self.inner, &z, y)?)
                })
            }

            fn progressive_predict<'py>(
                &mut self,
                py: Python<'py>,
                z: numpy::PyReadonlyArray2<'py, f64>,
                y: numpy::PyReadonlyArray1<'py, f64>,
            ) -> PyResult<Bound<'py, PyArray1<f64>>> {
                guard(|| {
                    let (zs, n, d) = crate::python::convert::mat2(&z);
                    let ys = crate::python::convert::vec1(&y);
                    let (zs, ys): (&[f64], &[f64]) = (&zs, &ys);
                    let inner = &mut self.inner;
                    let mut out = Vec::new();
                    let res = py.detach(|| {
                        aggregation::progressive_predict_into(inner, zs, n, d, ys, &mut out)
                    });
                    crate::python::errors::stream_result(py, res, out.len(), Some(&out))?;
                    Ok(PyArray1::from_vec(py, out))
                })
            }

            #[getter]
            fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
                PyArray1::from_vec(py, self.inner.weights())
            }

            #[getter]
            fn n_seen(&self) -> u64 {
                self.inner.n_seen()
            }

            #[getter]
            fn n_experts(&self) -> usize {
                self.inner.n_experts()
            }

            fn _state_bytes<'py>(
                &self,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                let bytes = crate::python::protocol::dump(&self.inner)?;
                Ok(pyo3::types::PyBytes::new(py, &bytes))
            }

            fn _set_state_bytes(&mut self, data: &[u8]) -> PyResult<()> {
                guard(|| {
                    self.inner = crate::python::protocol::load::<$core_ty>(data, &self.inner)?;
                    Ok(())
                })
            }

            /// The format version of this class's pickled state.
            #[staticmethod]
            fn _state_version() -> u32 {
                <$core_ty as crate::state::StateVersion>::STATE_VERSION
            }

            fn __copy__(&self) -> Self {
                Self { inner: self.inner.clone() }
            }

            /// Takes the state of `fresh` if this rule has seen no data (`set_params`:
            /// the check and the swap happen under this object's borrow).
            fn _adopt(&mut self, mut fresh: PyRefMut<'_, Self>) -> PyResult<()> {
                let n = self.inner.n_seen();
                adopt_unseen(&mut self.inner, &mut fresh.inner, n, "a rule")
            }
        }
    };
}

aggregator_class!(PyVawMeta, "VAWMeta", VawMeta, Vaw);
aggregator_class!(PyEwa, "EWA", Ewa, Ewa);
aggregator_class!(PyAa, "AggregatingAlgorithm", AggregatingAlgorithm, Aa);
aggregator_class!(PyBoa, "BOA", Boa, Boa);
aggregator_class!(PyMlPoly, "MLPoly", MlPoly, MlPoly);
aggregator_class!(PyMlProd, "MLProd", MlProd, MlProd);

/// The one table of aggregation rules ([`crate::aggregation::RULES`]): per rule a dict
/// `{"name", "class", "params": {name: default}}`, in the table's order. The Python
/// faces (Mixture, MultiKernelAWV, AutoKernel) read the rule names from it.
#[pyfunction]
fn aggregation_rules(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    use crate::params::Params;
    let defaults = RuleParams::default().values();
    RULES
        .iter()
        .map(|r| {
            let params = PyDict::new(py);
            for p in r.params {
                let Some(i) = RuleParams::SPECS.iter().position(|s| s.name == *p) else {
                    return Err(crate::KsError::Internal(format!("rule parameter {p}")).into());
                };
                params.set_item(p, crate::python::params::to_py(py, &defaults[i])?)?;
            }
            let d = PyDict::new(py);
            d.set_item("name", r.name)?;
            d.set_item("class", r.class)?;
            d.set_item("params", params)?;
            Ok(d)
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(aggregation_rules, m)?)?;
    m.add_class::<PyVawMeta>()?;
    m.add_class::<PyEwa>()?;
    m.add_class::<PyAa>()?;
    m.add_class::<PyBoa>()?;
    m.add_class::<PyMlPoly>()?;
    m.add_class::<PyMlProd>()
}
