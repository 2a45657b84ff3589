//! The parameters a learner's state holds, as Python objects, for pickling (`_params()`,
//! `_params_of_state(bytes)`): the core lists them ([`crate::state::StateParams`],
//! declared next to each learner with [`state_params!`](crate::state_params!)); this
//! converts each value ([`super::params::to_py`]).
use crate::state::StateParams;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `{name: value in the constructor's form}` of each parameter `s`'s state holds.
pub fn state_params<'py, S: StateParams>(py: Python<'py>, s: &S) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, value) in s.state_params() {
        d.set_item(name, super::params::to_py(py, &value)?)?;
    }
    Ok(d)
}
