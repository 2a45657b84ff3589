//! Bindings of the aggregation rules ([`crate::aggregation`]): `predict(z)`,
//! `update(z, y)`, `weights`, `progressive_predict(Z, y)` (GIL released),
//! `n_seen`, `n_experts`, state bytes for pickling. Every input is validated
//! before any state changes.
use crate::aggregation::{
    self, AggregatingAlgorithm, Aggregator, Boa, Ewa, MlPoly, MlProd, VawMeta,
};
use crate::python::errors::guard;
use numpy::PyArray1;
use pyo3::prelude::*;

macro_rules! aggregator_protocol {
    ($py_ty:ty, $core_ty:ty) => {
        #[pymethods]
        impl $py_ty {
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
                if n != 0 {
                    return Err(crate::KsError::Parameter(format!(
                        "set_params on a rule that has seen {n} rounds: parameters can only \
                         change before learning (build a new object instead)"
                    ))
                    .into());
                }
                std::mem::swap(&mut self.inner, &mut fresh.inner);
                Ok(())
            }
        }
    };
}

#[pyclass(module = "kernelstream._core", name = "VAWMeta")]
pub struct PyVawMeta {
    pub inner: VawMeta,
}
#[pymethods]
impl PyVawMeta {
    #[new]
    #[pyo3(signature = (n_experts, lam, ridge))]
    fn new(n_experts: usize, lam: f64, ridge: bool) -> PyResult<Self> {
        Ok(PyVawMeta { inner: VawMeta::new(n_experts, lam, ridge)? })
    }
}
aggregator_protocol!(PyVawMeta, VawMeta);

#[pyclass(module = "kernelstream._core", name = "EWA")]
pub struct PyEwa {
    pub inner: Ewa,
}
#[pymethods]
impl PyEwa {
    #[new]
    #[pyo3(signature = (n_experts, eta, share))]
    fn new(n_experts: usize, eta: f64, share: f64) -> PyResult<Self> {
        Ok(PyEwa { inner: Ewa::new(n_experts, eta)?.with_share(share)? })
    }
}
aggregator_protocol!(PyEwa, Ewa);

#[pyclass(module = "kernelstream._core", name = "AggregatingAlgorithm")]
pub struct PyAa {
    pub inner: AggregatingAlgorithm,
}
#[pymethods]
impl PyAa {
    #[new]
    #[pyo3(signature = (n_experts, lo, hi))]
    fn new(n_experts: usize, lo: f64, hi: f64) -> PyResult<Self> {
        Ok(PyAa { inner: AggregatingAlgorithm::new(n_experts, lo, hi)? })
    }
}
aggregator_protocol!(PyAa, AggregatingAlgorithm);

#[pyclass(module = "kernelstream._core", name = "BOA")]
pub struct PyBoa {
    pub inner: Boa,
}
#[pymethods]
impl PyBoa {
    #[new]
    #[pyo3(signature = (n_experts, gradient, share))]
    fn new(n_experts: usize, gradient: bool, share: f64) -> PyResult<Self> {
        Ok(PyBoa { inner: Boa::new(n_experts, gradient)?.with_share(share)? })
    }
}
aggregator_protocol!(PyBoa, Boa);

#[pyclass(module = "kernelstream._core", name = "MLPoly")]
pub struct PyMlPoly {
    pub inner: MlPoly,
}
#[pymethods]
impl PyMlPoly {
    #[new]
    #[pyo3(signature = (n_experts, gradient, share))]
    fn new(n_experts: usize, gradient: bool, share: f64) -> PyResult<Self> {
        Ok(PyMlPoly { inner: MlPoly::new(n_experts, gradient)?.with_share(share)? })
    }
}
aggregator_protocol!(PyMlPoly, MlPoly);

#[pyclass(module = "kernelstream._core", name = "MLProd")]
pub struct PyMlProd {
    pub inner: MlProd,
}
#[pymethods]
impl PyMlProd {
    #[new]
    #[pyo3(signature = (n_experts, gradient, share))]
    fn new(n_experts: usize, gradient: bool, share: f64) -> PyResult<Self> {
        Ok(PyMlProd { inner: MlProd::new(n_experts, gradient)?.with_share(share)? })
    }
}
aggregator_protocol!(PyMlProd, MlProd);

/// The one table of aggregation rules ([`crate::aggregation::RULES`]): per rule a dict
/// `{"name", "class", "params": {name: default}}`, in the table's order. The Python
/// faces (Mixture, MultiKernelAWV, AutoKernel) read the rule names from it.
#[pyfunction]
fn aggregation_rules(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    use crate::aggregation::{ParamValue, RuleParams, RULES};
    use pyo3::types::PyDict;
    let defaults = RuleParams::default();
    RULES
        .iter()
        .map(|r| {
            let params = PyDict::new(py);
            for p in r.params {
                match defaults.value(p) {
                    Some(ParamValue::Real(v)) => params.set_item(p, v)?,
                    Some(ParamValue::Flag(v)) => params.set_item(p, v)?,
                    None => {
                        return Err(crate::KsError::Internal(format!("rule parameter {p}")).into())
                    }
                }
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
