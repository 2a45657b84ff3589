//! The binding class of every learner, generated from the learner table
//! ([`crate::learners!`]): `classes::TaylorAwv` is `kernelstream._core.TaylorAWV`, a
//! `#[pyclass]` holding the core learner in `inner`, with
//! * the constructor `__new__(**kwargs)`: the keywords fill the learner's parameter
//!   struct (defaults from its `Default`; an unknown keyword is an `InputError` naming
//!   it), then `Core::new(&params)` (a line with `args` other than `NO_ARGS` writes its own
//!   `#[new]`);
//! * the learner protocol ([`crate::learner_protocol!`]), the serving loop's entry
//!   points ([`crate::serve_protocol!`]) and, for a line marked `multi_output: true`,
//!   the multi-output methods ([`crate::multi_output_protocol!`]).
//!
//! Methods beyond these (getters of learned state) are added by a `#[pymethods]` block on
//! the generated class in the learner's own binding file (pyo3's `multiple-pymethods`).

macro_rules! classes {
    ($($v:ident {
        core: $ty:ty, held: $pay:ty, params: $params:ty, python: $name:literal in $module:literal,
        task: $task:literal, inputs: $domain:literal, expert: $expert:tt, multi_output: $multi:tt,
        args: $args:ident,
    };)*) => {
        $(
            #[pyo3::pyclass(module = "kernelstream._core", name = $name)]
            pub struct $v {
                pub inner: $ty,
            }

            constructor!($v, $ty, $args);
            crate::learner_protocol!($v, $ty);
            multi_output!($v, $multi);
            crate::serve_protocol!($v, $multi);
        )*
    };
}

/// `__new__(**kwargs)` for a learner whose every argument is in its parameter struct
/// (`NO_ARGS`); a learner with other arguments writes its own.
macro_rules! constructor {
    ($v:ident, $ty:ty, NO_ARGS) => {
        #[pyo3::pymethods]
        impl $v {
            #[new]
            #[pyo3(signature = (**kwargs))]
            fn new(kwargs: Option<&pyo3::Bound<'_, pyo3::types::PyDict>>) -> pyo3::PyResult<Self> {
                let p = crate::python::params::from_kwargs(kwargs)?;
                Ok($v { inner: <$ty>::new(&p)? })
            }
        }
    };
    ($v:ident, $ty:ty, $args:ident) => {};
}

macro_rules! multi_output {
    ($v:ident, true) => {
        crate::multi_output_protocol!($v);
    };
    ($v:ident, false) => {};
}

crate::learners!(classes);
