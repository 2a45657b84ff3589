//! NumPy <-> slice conversion. Contiguous float64 arrays are borrowed without a
//! copy; anything else is copied once into row-major order.

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use std::borrow::Cow;

/// A 1-D float64 array as a slice.
pub fn vec1<'a>(a: &'a PyReadonlyArray1<'_, f64>) -> Cow<'a, [f64]> {
    match a.as_slice() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(a.as_array().iter().copied().collect()),
    }
}

/// A 2-D float64 array as a row-major slice with its shape `(n, d)`.
pub fn mat2<'a>(a: &'a PyReadonlyArray2<'_, f64>) -> (Cow<'a, [f64]>, usize, usize) {
    let shape = a.shape();
    let (n, d) = (shape[0], shape[1]);
    let data = match a.as_slice() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(a.as_array().iter().copied().collect()),
    };
    (data, n, d)
}
