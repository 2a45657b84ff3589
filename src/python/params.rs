//! Parameter structs from keyword arguments and back (the bindings' constructors and
//! `_core.registry()`): [`from_kwargs`] starts from `Default::default()` and sets each
//! keyword; a value of the wrong type is a `ParameterError` naming the parameter, an
//! unknown keyword an `InputError` naming it. The values are checked by the struct's
//! `validate` in the learner's constructor, never here.
use crate::error::KsError;
use crate::kernels::Kernel;
use crate::params::{ParamInput, Params, ReadAs, SetField, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A parameter struct the bindings fill from keyword arguments: `params!` derives
/// [`SetField`] for every value type that reads each field type, and this module's
/// `ReadAs` impl makes a Python object one.
pub trait PyParams: Params + for<'py> SetField<Bound<'py, PyAny>> {}
impl<P: Params + for<'py> SetField<Bound<'py, PyAny>>> PyParams for P {}

/// A field type from a Python value (the core reports it back as a [`Value`],
/// [`to_py`] converts that).
pub trait PyParam: Sized {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self>;
}

impl ParamInput for Bound<'_, PyAny> {
    type Error = PyErr;
}

/// Every field type with a [`PyParam`] is read by [`extract`].
impl<T: PyParam> ReadAs<T> for Bound<'_, PyAny> {
    fn read_as(&self, key: &str) -> PyResult<T> {
        extract(key, self)
    }
}

/// A core value as a Python object: `None`, a bool, an int, a float, a str, a tuple
/// (the defaults are immutable, as in the Python signatures), a `Kernel` object or a
/// 2-d float array.
pub fn to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::None => py.None(),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => (*i).into_pyobject(py)?.into_any().unbind(),
        Value::Float(x) => (*x).into_pyobject(py)?.into_any().unbind(),
        Value::Str(s) => pyo3::types::PyString::new(py, s).into_any().unbind(),
        Value::Tuple(items) => {
            let items = items.iter().map(|t| to_py(py, t)).collect::<PyResult<Vec<_>>>()?;
            pyo3::types::PyTuple::new(py, items)?.into_any().unbind()
        }
        Value::Kernel(k) => crate::python::kernels::kernel_object(py, *k)?,
        Value::Matrix { values, rows, cols } => {
            crate::python::convert::matrix(py, values.clone(), *rows, *cols)?.into_any().unbind()
        }
    })
}

/// The field `key` from `v`; a conversion failure that is not a `ValueError` naming
/// `key` (a `TypeError`, an `OverflowError`, a name that is not an option) becomes a
/// `ParameterError` naming `key`.
pub fn extract<T: PyParam>(key: &str, v: &Bound<'_, PyAny>) -> PyResult<T> {
    T::from_py(v).map_err(|e| {
        let py = v.py();
        let msg = e.value(py).to_string();
        if e.is_instance_of::<pyo3::exceptions::PyValueError>(py) && msg.contains(key) {
            e
        } else {
            KsError::Parameter(format!("{key}: {msg}")).into()
        }
    })
}

/// `P::default()` with the keyword arguments set.
pub fn from_kwargs<P: PyParams>(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<P> {
    let mut p = P::default();
    for (k, v) in kwargs.into_iter().flat_map(|kw| kw.iter()) {
        let key: String = k.extract()?;
        if !p.set_field(&key, &v)? {
            let names: Vec<&str> = P::SPECS.iter().map(|s| s.name).collect();
            return Err(KsError::Input(format!(
                "unknown parameter {key:?}; the parameters are {names:?}"
            ))
            .into());
        }
    }
    Ok(p)
}

/// `[{"name", "default", "kind", "domain", "required"}]` of `P` (defaults from `P::default()`).
pub fn describe<'py, P: PyParams>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (spec, value) in P::SPECS.iter().zip(P::default().values()) {
        let d = PyDict::new(py);
        d.set_item("name", spec.name)?;
        // A required parameter has no default (a Rust placeholder is not reported).
        d.set_item("default", if spec.required { py.None() } else { to_py(py, &value)? })?;
        describe_spec(&d, spec)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The `kind`, `domain` (the constraint in words), `constraint` (structured) and
/// `required` items of a parameter's entry.
pub fn describe_spec(d: &Bound<'_, PyDict>, spec: &crate::params::ParamSpec) -> PyResult<()> {
    d.set_item("kind", spec.kind)?;
    d.set_item("domain", spec.domain.to_string())?;
    d.set_item("constraint", constraint(d.py(), &spec.domain)?)?;
    d.set_item("required", spec.required)
}

/// A constraint as a dict: `type` (`"flag"`, `"interval"`, `"options"` or `"object"`)
/// with its fields (`lo`, `hi`, `lo_open`, `hi_open`; `options`; `text`), and
/// `or_none`, `each`, `non_empty`, `note`.
fn constraint<'py>(py: Python<'py>, c: &crate::params::Constraint) -> PyResult<Bound<'py, PyDict>> {
    use crate::params::Domain;
    let d = PyDict::new(py);
    match c.domain {
        Domain::Flag => d.set_item("type", "flag")?,
        Domain::Interval { lo, hi, lo_open, hi_open } => {
            d.set_item("type", "interval")?;
            d.set_item("lo", lo)?;
            d.set_item("hi", hi)?;
            d.set_item("lo_open", lo_open)?;
            d.set_item("hi_open", hi_open)?;
        }
        Domain::Options(names) => {
            d.set_item("type", "options")?;
            d.set_item("options", names.to_vec())?;
        }
        Domain::Object(words) => {
            d.set_item("type", "object")?;
            d.set_item("text", words)?;
        }
    }
    d.set_item("or_none", c.or_none)?;
    d.set_item("each", c.each)?;
    d.set_item("non_empty", c.non_empty)?;
    d.set_item("note", c.note)?;
    Ok(d)
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl PyParam for $t {
            fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
                v.extract()
            }
        }
    )*};
}
plain!(f64, usize, u64, u32, bool, String);

impl<T: PyParam> PyParam for Option<T> {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        if v.is_none() {
            Ok(None)
        } else {
            T::from_py(v).map(Some)
        }
    }
}

impl<T: PyParam> PyParam for Vec<T> {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        if v.is_instance_of::<pyo3::types::PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err("expected a sequence, got a str"));
        }
        v.try_iter()?.map(|item| T::from_py(&item?)).collect()
    }
}

impl PyParam for (f64, f64) {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        v.extract()
    }
}

impl PyParam for Kernel {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        match v.extract::<PyRef<'_, crate::python::kernels::PyKernel>>() {
            Ok(k) => Ok(k.inner),
            Err(_) => Err(KsError::Parameter(format!(
                "kernel must be a kernelstream.kernels.Kernel, got {}",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
            .into()),
        }
    }
}

/// A choice among names ([`crate::names!`]): the Python value is the name.
impl<T: crate::params::Named> PyParam for T {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(T::from_name(&v.extract::<String>()?)?)
    }
}

impl PyParam for crate::learners::nystrom_awv::FixedDictionary {
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Self> {
        let arr = v.extract::<numpy::PyReadonlyArray2<'_, f64>>()?;
        let (points, _m, d) = crate::python::convert::mat2(&arr);
        Ok(Self { points: points.into_owned(), d })
    }
}
