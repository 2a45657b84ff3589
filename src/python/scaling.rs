//! Binding of [`crate::scaling`]: `_standardize_row`, one row through the adapters'
//! online standardizer (`python/kernelstream/adapters/_scaling.py`).
use crate::python::convert::vec1;
use crate::python::errors::guard;
use crate::scaling::{Moments, Scaling};
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

type Row<'py> = Bound<'py, PyArray1<f64>>;

/// What `_standardize_row` reads of a Python `OnlineStandardizer`, by attribute: the
/// moments `(n, mean, m2)` (`mean`, `m2`: `None` when `n = 0`) and how it scales.
#[derive(FromPyObject)]
struct Standardizer<'py> {
    n: u64,
    mean: Option<PyReadonlyArray1<'py, f64>>,
    m2: Option<PyReadonlyArray1<'py, f64>>,
    keep_unit: bool,
    per_dimension: bool,
}

/// `x` scaled with the moments of `standardizer`; with `learn`, the moments first take
/// `x` in, and the new `mean`, `m2` come back beside the scaled row: `(z, mean', m2')`,
/// else `(z, None, None)`.
#[pyfunction]
#[pyo3(signature = (x, standardizer, learn))]
#[allow(clippy::type_complexity)]
fn _standardize_row<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    standardizer: Standardizer<'py>,
    learn: bool,
) -> PyResult<(Row<'py>, Option<Row<'py>>, Option<Row<'py>>)> {
    let Standardizer { n, mean, m2, keep_unit, per_dimension } = standardizer;
    guard(|| {
        // The new mean, m2 and the scaled row: within the memory ceiling before allocating.
        let d = x.len();
        crate::limits::check_input_doubles(
            &format!("standardizing a row of {d} values"),
            Some(3 * d as u128),
        )?;
        let x = vec1(&x);
        let own = |a: &Option<PyReadonlyArray1<'py, f64>>| {
            a.as_ref().map_or(Vec::new(), |a| vec1(a).into_owned())
        };
        let moments = Moments { n, mean: own(&mean), m2: own(&m2) };
        moments.check(x.len())?;
        let how = Scaling { keep_unit, per_dimension };
        let mut z = Vec::with_capacity(x.len());
        if !learn {
            moments.scale(&x, how, &mut z)?;
            return Ok((PyArray1::from_vec(py, z), None, None));
        }
        let next = moments.with_row(&x)?;
        next.scale(&x, how, &mut z)?;
        let (mean, m2) = (PyArray1::from_vec(py, next.mean), PyArray1::from_vec(py, next.m2));
        Ok((PyArray1::from_vec(py, z), Some(mean), Some(m2)))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_standardize_row, m)?)
}
