//! Python bindings (`kernelstream._core`), compiled only with the `python` feature.
//!
//! Thin by design: convert NumPy arrays to slices, release the GIL for whole-stream
//! loops (`py.detach`), call the core, and map [`KsError`] onto the Python
//! exceptions of the API contract. A learner object is not shared across threads
//! without a lock: PyO3's borrow checking raises if two threads use one learner.

mod aggregation;
mod averaged_sgd;
mod build_info;
pub mod convert;
pub mod errors;
mod fogd;
mod kernel_awv;
mod kernels;
pub mod kors;
mod mixture;
mod multi_kernel_awv;
mod nystrom_awv;
mod online_projection;
mod pros_n_kons;
pub mod protocol;
mod rff_awv;
mod rng;
mod taylor_awv;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STATE_FORMAT_VERSION", protocol::STATE_FORMAT_VERSION)?;
    errors::register(m)?;
    rng::register(m)?;
    kernels::register(m)?;
    taylor_awv::register(m)?;
    kernel_awv::register(m)?;
    kors::register(m)?;
    nystrom_awv::register(m)?;
    rff_awv::register(m)?;
    multi_kernel_awv::register(m)?;
    aggregation::register(m)?;
    fogd::register(m)?;
    pros_n_kons::register(m)?;
    online_projection::register(m)?;
    averaged_sgd::register(m)?;
    mixture::register(m)?;
    build_info::register(m)?;
    Ok(())
}
