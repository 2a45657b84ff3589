//! The parameters a learner's state holds, read back for pickling (`_params()`,
//! `_params_of_state(bytes)`): a pickle keeps each parameter once, in the core state
//! when the state holds it in the form it was given, else beside it in the Python
//! envelope (`python/kernelstream/_wrapped.py`).
//!
//! A learner lists the fields of its state that are constructor parameters with
//! [`state_params!`](crate::state_params!) (`name` or `field as "name"`); a learner
//! that lists none (the default) leaves every parameter to the envelope.
use pyo3::prelude::*;

/// `(name, value in the constructor's form)` of each parameter the state holds.
pub type Pairs = Vec<(&'static str, Py<PyAny>)>;

pub trait StateParams {
    /// The parameters held by the state (serialised fields only, so that a decoded
    /// state reports what the state it was written from reported).
    fn state_params(&self, _py: Python<'_>) -> PyResult<Pairs> {
        Ok(Vec::new())
    }
}

// `crate::state_params!` (the macro) is in `crate::state`: learners invoke it in every build.

/// Every field of a parameter struct (a state that keeps its whole struct).
pub fn all_params<P: crate::python::params::PyParams>(p: &P, py: Python<'_>) -> PyResult<Pairs> {
    Ok(P::SPECS.iter().map(|s| s.name).zip(p.values(py)?).collect())
}

// A Mixture's state holds its experts and rule, not the Python objects its parameters
// are: every parameter stays in the envelope.
impl StateParams for crate::mixture::Mixture {}

/// OnlineProjection's plain settings (the basis, the count and the prefix are held in
/// derived forms: the basis' functions, a pairs flag, a prefix degree).
impl StateParams for crate::learners::OnlineProjection {
    fn state_params(&self, py: Python<'_>) -> PyResult<Pairs> {
        use crate::python::params::PyParam;
        let c = self.config();
        Ok(vec![
            ("alpha", c.alpha.to_py(py)?),
            ("c", c.c.to_py(py)?),
            ("additive", c.additive.to_py(py)?),
            ("refresh", c.refresh.to_py(py)?),
            ("tol", c.tol.to_py(py)?),
        ])
    }
}

/// AutoKernel's parameters, held whole by its state as they were given.
impl StateParams for crate::mixture::AutoKernel {
    fn state_params(&self, py: Python<'_>) -> PyResult<Pairs> {
        all_params(self.config(), py)
    }
}
