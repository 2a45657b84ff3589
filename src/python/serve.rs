//! The serving loop's entry points, generated for every learner class by
//! [`serve_protocol!`]: `_serve_predict(x)` and `_serve_learn(x, y)`, the
//! `predict_one` and `learn_one` of the common case in one call from the Python face
//! (which otherwise converts and checks its arguments in Python first: about 0.6 us of
//! a round, docs/performance.md, "The serving loop").
//!
//! The common case is an input that is exactly a 1-D `numpy.ndarray` of float64 with
//! at least one entry and, to learn, a target that is a Python float (`numpy.float64`
//! is one). For anything else both return without touching the learner (`None`,
//! `False`) and the face takes its general path, which converts or refuses the
//! arguments with its own messages. In the common case the core is called exactly as
//! the general path calls it, so results and errors are the same.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyFloat;

/// `x` as a read-only 1-D float64 array if it is exactly an `ndarray` of that kind
/// with at least one entry (not a subclass: a masked array takes the general path).
pub fn common_row<'py>(x: &Bound<'py, PyAny>) -> Option<PyReadonlyArray1<'py, f64>> {
    // SAFETY: `PyArray_CheckExact` only reads the type of a live object.
    if unsafe { numpy::npyffi::PyArray_CheckExact(x.py(), x.as_ptr()) } == 0 {
        return None;
    }
    let a = x.cast::<PyArray1<f64>>().ok()?;
    if a.len() == 0 {
        return None;
    }
    a.try_readonly().ok()
}

/// `y` as an `f64` if it is a Python float (or a subclass: `numpy.float64`).
pub fn common_target(y: &Bound<'_, PyAny>) -> Option<f64> {
    y.cast::<PyFloat>().ok().map(|f| f.value())
}

/// Implements `_serve_predict` and `_serve_learn` for a learner class; `multi`
/// (`true` for a [`crate::multi::MultiOutput`] learner) makes `_serve_predict` return
/// the `K` predictions as an array once `K > 1`, as the face's `predict_one` does.
#[macro_export]
macro_rules! serve_protocol {
    ($py_ty:ty, $multi:tt) => {
        #[pyo3::pymethods]
        impl $py_ty {
            /// `predict_one(x)` for a 1-D float64 array `x`; `None` (nothing done)
            /// for any other `x`.
            fn _serve_predict<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                x: &pyo3::Bound<'py, pyo3::PyAny>,
            ) -> pyo3::PyResult<Option<pyo3::Py<pyo3::PyAny>>> {
                let Some(x) = $crate::python::serve::common_row(x) else {
                    return Ok(None);
                };
                $crate::python::errors::guard(|| {
                    let x = $crate::python::convert::vec1(&x);
                    $crate::serve_protocol!(@predict $multi, self, py, x)
                })
            }

            /// `learn_one(x, y)` for a 1-D float64 array `x` and a float `y` (or,
            /// for a multi-output learner, a 1-D float64 array `y` of `K` targets),
            /// returning `True`; `False` (nothing done) for any other `x` or `y`.
            #[pyo3(signature = (x, y, w = 1.0))]
            fn _serve_learn(
                &mut self,
                x: &pyo3::Bound<'_, pyo3::PyAny>,
                y: &pyo3::Bound<'_, pyo3::PyAny>,
                w: f64,
            ) -> pyo3::PyResult<bool> {
                let Some(x) = $crate::python::serve::common_row(x) else {
                    return Ok(false);
                };
                let Some(y) = $crate::python::serve::common_target(y) else {
                    return $crate::serve_protocol!(@learn_multi $multi, self, x, y, w);
                };
                $crate::python::errors::guard(|| {
                    let x = $crate::python::convert::vec1(&x);
                    $crate::interrupt::start();
                    $crate::stream::learn_one_weighted(&mut self.inner, &x, y, w)?;
                    Ok(true)
                })
            }
        }
    };
    // The `K` targets of a multi-output learner as a 1-D float64 array: the face's
    // `_learn_one_multi`, the same calls (`src/python/multi_output.rs`).
    (@learn_multi true, $s:ident, $x:ident, $y:ident, $w:ident) => {{
        let Some(y) = $crate::python::serve::common_row($y) else {
            return Ok(false);
        };
        $crate::python::errors::guard(|| {
            let (x, y) = ($crate::python::convert::vec1(&$x), $crate::python::convert::vec1(&y));
            $crate::interrupt::start();
            $crate::python::multi_output::learn_one_multi(&mut $s.inner, &x, &y, $w)?;
            Ok(true)
        })
    }};
    (@learn_multi false, $s:ident, $x:ident, $y:ident, $w:ident) => {{
        let _ = ($x, $y, $w);
        Ok(false)
    }};
    (@predict true, $s:ident, $py:ident, $x:ident) => {{
        use pyo3::IntoPyObjectExt;
        use $crate::multi::MultiOutput;
        if $s.inner.n_outputs().is_some_and(|k| k > 1) {
            let p = $crate::multi::stream::predict_one_keep(&mut $s.inner, &$x)?;
            Ok(Some(numpy::PyArray1::from_vec($py, p).into_any().unbind()))
        } else {
            let p = $crate::stream::predict_one_keep(&mut $s.inner, &$x)?;
            Ok(Some(p.into_py_any($py)?))
        }
    }};
    (@predict false, $s:ident, $py:ident, $x:ident) => {{
        use pyo3::IntoPyObjectExt;
        let p = $crate::stream::predict_one_keep(&mut $s.inner, &$x)?;
        Ok(Some(p.into_py_any($py)?))
    }};
}
