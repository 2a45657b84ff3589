//! `kernelstream._core.Rng`: the library's generator, exposed so that the NumPy
//! references can consume exactly the draws the Rust learners make.
use crate::rng::Rng;
use pyo3::prelude::*;

#[pyclass(module = "kernelstream._core", name = "Rng")]
pub struct PyRng {
    inner: Rng,
}

#[pymethods]
impl PyRng {
    #[new]
    fn new(seed: u64) -> Self {
        PyRng { inner: Rng::new(seed) }
    }
    fn uniform(&mut self) -> f64 {
        self.inner.uniform()
    }
    fn normal(&mut self) -> f64 {
        self.inner.normal()
    }
    fn cauchy(&mut self) -> f64 {
        self.inner.cauchy()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.inner.below(n)
    }
    fn permutation(&mut self, n: usize) -> Vec<usize> {
        self.inner.permutation(n)
    }
    /// The next 64 random bits (the seeds a learner draws for its experts).
    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRng>()
}
