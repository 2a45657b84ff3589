//! `kernelstream._core.build_info()`: how this extension was built and which
//! instruction-set path its hot kernels take on this CPU ([`crate::simd`]).
use crate::simd;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyfunction]
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("simd_path", simd::selected().name())?;
    d.set_item("simd_detected", simd::detected().name())?;
    d.set_item("simd_requested", std::env::var("KERNELSTREAM_SIMD").ok())?;
    let kernels = PyDict::new(py);
    for (name, path) in simd::kernel_paths() {
        kernels.set_item(name, path.name())?;
    }
    d.set_item("kernels", kernels)?;
    d.set_item("target_features", simd::compiled_features())?;
    d.set_item("target", env!("KS_TARGET"))?;
    d.set_item("rustc", env!("KS_RUSTC_VERSION"))?;
    d.set_item("profile", env!("KS_PROFILE"))?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build_info, m)?)
}
