//! What the bindings derive from the learner table ([`crate::learners!`]) besides the
//! classes themselves (`super::classes`): their registration, the conversion of a
//! learner's core object into a Mixture expert, and `_core.registry()`.
use crate::mixture::AnyLearner;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The columns of one line of the table.
struct Line {
    name: &'static str,
    task: &'static str,
    input_domain: &'static str,
    module: &'static str,
    state_version: u32,
    expert: bool,
    args: &'static [(crate::params::ParamSpec, Option<&'static str>)],
}

/// One `_core.registry()` entry.
fn entry<'py, P: super::params::PyParams>(
    py: Python<'py>,
    l: Line,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", l.name)?;
    d.set_item("core_class", l.name)?;
    d.set_item("task", l.task)?;
    d.set_item("input_domain", l.input_domain)?;
    d.set_item("module", l.module)?;
    d.set_item("state_version", l.state_version)?;
    d.set_item("mixture_expert", l.expert)?;
    let args = l.args;
    let params = PyList::empty(py);
    for (spec, default) in args {
        let p = PyDict::new(py);
        p.set_item("name", spec.name)?;
        p.set_item("default", default)?;
        super::params::describe_spec(&p, spec)?;
        params.append(p)?;
    }
    for p in super::params::describe::<P>(py)?.iter() {
        params.append(p)?;
    }
    d.set_item("params", params)?;
    Ok(d)
}

macro_rules! bindings {
    ($($v:ident {
        core: $ty:ty, held: $pay:ty, params: $params:ty, python: $name:literal in $module:literal,
        task: $task:literal, inputs: $domain:literal, expert: $expert:tt, multi_output: $multi:tt,
        args: $args:ident,
    };)*) => {
        /// Adds every learner's binding class to the module.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<super::classes::$v>()?;)*
            Ok(())
        }

        /// The core learner inside a Python core object, copied (a Mixture expert).
        pub fn any_learner(obj: &Bound<'_, PyAny>) -> PyResult<AnyLearner> {
            $(any_learner!(obj, $expert, $v, super::classes::$v);)*
            Err(PyErr::from(crate::KsError::Parameter(format!(
                "an expert must be a kernelstream learner, got {}",
                obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))))
        }

        /// The learners, in table order: name, binding class, task, input domain, the
        /// module of the Python face (`kernelstream.learners.<module>`), state
        /// version, whether a Mixture takes it as an expert, and its parameters (name,
        /// default from the parameter struct's `Default`, kind, domain, required).
        #[pyfunction]
        pub fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
            let out = PyList::empty(py);
            $(
                let line = Line {
                    name: $name,
                    task: $task,
                    input_domain: $domain,
                    module: concat!("kernelstream.learners.", $module),
                    state_version: <$ty as crate::state::StateVersion>::STATE_VERSION,
                    expert: $expert,
                    args: &crate::learners::$args,
                };
                out.append(entry::<$params>(py, line)?)?;
            )*
            Ok(out)
        }
    };
}

macro_rules! any_learner {
    ($obj:ident, true, $v:ident, $py:path) => {
        if let Ok(r) = $obj.extract::<PyRef<'_, $py>>() {
            return Ok(AnyLearner::$v(r.inner.clone().into()));
        }
    };
    ($obj:ident, false, $v:ident, $py:path) => {};
}

crate::learners!(bindings);
