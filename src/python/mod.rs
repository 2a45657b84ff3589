//! Python bindings (`kernelstream._core`), compiled only with the `python` feature.
//!
//! Thin by design: convert NumPy arrays to slices, release the GIL for whole-stream
//! loops (`py.detach`), call the core, and map [`KsError`] onto the Python
//! exceptions of the API contract. A learner object is not shared across threads
//! without a lock: PyO3's borrow checking raises if two threads use one learner.

mod aggregation;
mod averaged_sgd;
mod build_info;
mod calibration;
mod classes;
pub mod convert;
pub mod errors;
mod fogd;
mod kernel_awv;
mod kernels;
pub mod kors;
mod mixture;
mod multi_kernel_awv;
pub mod multi_output;
mod nystrom_awv;
mod online_projection;
pub mod params;
mod pros_n_kons;
pub mod protocol;
mod registry;
mod rff_awv;
mod rng;
mod scaling;
pub mod serve;
pub mod state_params;
mod taylor_awv;

use pyo3::prelude::*;

/// Sets the memory ceiling in bytes (see `crate::limits`).
#[pyfunction]
fn set_memory_limit(bytes: u64) -> PyResult<()> {
    Ok(crate::limits::set_memory_limit(bytes)?)
}

/// The memory ceiling in bytes.
#[pyfunction]
fn get_memory_limit() -> PyResult<u64> {
    Ok(crate::limits::memory_limit()?)
}

/// Test hook: panics inside the binding guard (must raise `InternalError`).
#[pyfunction]
fn _test_panic() -> PyResult<()> {
    errors::guard(|| -> PyResult<()> { panic!("deliberate panic of _core._test_panic") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    crate::interrupt::set_hook(errors::signal_hook);
    m.add_function(wrap_pyfunction!(set_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(get_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(_test_panic, m)?)?;
    errors::register(m)?;
    m.add("SCALE_MIN", crate::limits::SCALE_MIN)?;
    m.add("SCALE_MAX", crate::limits::SCALE_MAX)?;
    m.add("Y_MAX", crate::limits::Y_MAX)?;
    rng::register(m)?;
    kernels::register(m)?;
    kors::register(m)?;
    aggregation::register(m)?;
    registry::register(m)?;
    m.add_function(wrap_pyfunction!(registry::registry, m)?)?;
    build_info::register(m)?;
    calibration::register(m)?;
    scaling::register(m)?;
    Ok(())
}
