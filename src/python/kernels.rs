//! Kernels as Python objects (`kernelstream.kernels`): a frozen base class `Kernel` around
//! [`crate::kernels::Kernel`] and one subclass per kernel. The name -> kernel table is
//! [`Kernel::from_spec`] alone; every learner, the CLI and the experiments go through it.
use crate::kernels::Kernel;
use crate::python::convert::Real;
use crate::KsError;
use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::PyClassInitializer;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Base class: a named, immutable kernel whose Gram matrices are computed in Rust.
///
/// ``k(X, Y)`` is the Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` if omitted; a
/// 1-D input is one row); ``k.diag(X)`` its diagonal ``k(X[i], X[i])``; ``k.eval(x, y)``
/// one value. ``Kernel.from_spec(name, params)`` builds a kernel from its ``spec``.
#[pyclass(module = "kernelstream.kernels", name = "Kernel", frozen, subclass, eq)]
#[derive(PartialEq)]
pub struct PyKernel {
    pub inner: Kernel,
}

/// Rows of a float array-like (2-D, or 1-D = one row), validated like a learner's input.
fn rows(x: &PyArrayLikeDyn<'_, f64, AllowTypeChange>, what: &str) -> PyResult<(Vec<f64>, usize)> {
    let shape = x.shape().to_vec();
    let d = match shape.len() {
        1 => shape[0],
        2 => shape[1],
        k => return Err(KsError::Input(format!("{what} must be 1-D or 2-D, got {k}-D")).into()),
    };
    let data: Vec<f64> = x.as_array().iter().copied().collect();
    if data.is_empty() && shape.len() == 2 && shape[0] == 0 {
        return Err(KsError::Input(format!("{what} has no rows")).into());
    }
    if let Some(i) = data.iter().position(|v| !v.is_finite()) {
        let row = i.checked_div(d).unwrap_or(0);
        return Err(KsError::Input(format!("{what} row {row} contains NaN or infinity")).into());
    }
    Ok((data, d))
}

/// The Python object of a kernel (its subclass).
pub(crate) fn kernel_object(py: Python<'_>, k: Kernel) -> PyResult<Py<PyAny>> {
    PyKernel::object(py, k)
}

impl PyKernel {
    fn object(py: Python<'_>, inner: Kernel) -> PyResult<Py<PyAny>> {
        let base = PyClassInitializer::from(PyKernel { inner });
        Ok(match inner {
            Kernel::Gaussian { .. } => Py::new(py, base.add_subclass(PyGaussian))?.into_any(),
            Kernel::Laplacian { .. } => Py::new(py, base.add_subclass(PyLaplacian))?.into_any(),
            Kernel::Min => Py::new(py, base.add_subclass(PyMin))?.into_any(),
            Kernel::BernoulliPeriodic => {
                Py::new(py, base.add_subclass(PyBernoulliPeriodic))?.into_any()
            }
            Kernel::AdditiveSobolev2 => {
                Py::new(py, base.add_subclass(PyAdditiveSobolev2))?.into_any()
            }
        })
    }
}

#[pymethods]
impl PyKernel {
    /// The kernel called ``name`` (``"gaussian"``, ``"laplacian"``, ``"min"``,
    /// ``"bernoulli_periodic"``, ``"additive_sobolev2"``) with parameters ``params``.
    #[staticmethod]
    #[pyo3(signature = (name, params=Vec::new()))]
    fn from_spec(py: Python<'_>, name: &str, params: Vec<f64>) -> PyResult<Py<PyAny>> {
        PyKernel::object(py, Kernel::from_spec(name, &params)?)
    }

    /// The kernel's name, as in ``spec``.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.spec().0
    }

    /// The kernel's parameters (a tuple of floats; empty for parameterless kernels).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.spec().1)
    }

    /// ``(name, [params])``, the form the Rust learners take.
    #[getter]
    fn spec(&self) -> (&'static str, Vec<f64>) {
        self.inner.spec()
    }

    /// ``k(x, y)`` for two points.
    fn eval(
        &self,
        x: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        y: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    ) -> PyResult<f64> {
        let ((xs, d), (ys, d2)) = (rows(&x, "x")?, rows(&y, "y")?);
        if xs.len() != d || ys.len() != d2 || d != d2 {
            return Err(KsError::Input(format!(
                "eval takes two points of one dimension, got {} and {} values",
                xs.len(),
                ys.len()
            ))
            .into());
        }
        Ok(self.inner.eval(&xs, &ys))
    }

    /// The diagonal ``k(X[i], X[i])``.
    fn diag<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLikeDyn<'py, f64, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (xs, d) = rows(&x, "X")?;
        let out = xs.chunks_exact(d.max(1)).map(|r| self.inner.diag(r)).collect();
        Ok(PyArray1::from_vec(py, out))
    }

    /// The Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` if omitted).
    #[pyo3(signature = (x, y=None))]
    fn gram<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLikeDyn<'py, f64, AllowTypeChange>,
        y: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (xs, d) = rows(&x, "X")?;
        let (ys, d2) = match &y {
            Some(y) => rows(y, "Y")?,
            None => (xs.clone(), d),
        };
        if d != d2 {
            return Err(KsError::Input(format!("X has {d} columns but Y has {d2}")).into());
        }
        let (n, m) = (xs.len().checked_div(d).unwrap_or(0), ys.len().checked_div(d).unwrap_or(0));
        let k = self.inner;
        let g = py.detach(|| k.gram(&xs, &ys, d));
        crate::python::convert::matrix(py, g, n, m)
    }

    /// Same as :meth:`gram`.
    #[pyo3(signature = (x, y=None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLikeDyn<'py, f64, AllowTypeChange>,
        y: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.gram(py, x, y)
    }

    fn __repr__(&self) -> String {
        match self.inner {
            Kernel::Gaussian { sigma } => format!("Gaussian(sigma={})", py_float(sigma)),
            Kernel::Laplacian { sigma } => format!("Laplacian(sigma={})", py_float(sigma)),
            Kernel::Min => "Min()".into(),
            Kernel::BernoulliPeriodic => "BernoulliPeriodic()".into(),
            Kernel::AdditiveSobolev2 => "AdditiveSobolev2()".into(),
        }
    }

    fn __hash__(&self) -> u64 {
        let (name, params) = self.inner.spec();
        let mut h = DefaultHasher::new();
        name.hash(&mut h);
        for p in params {
            p.to_bits().hash(&mut h);
        }
        h.finish()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let params = slf.get().params(slf.py())?;
        Ok((slf.get_type().into_any(), params))
    }
}

/// A float as Python's ``repr`` writes it (``1.0``, ``0.5``, ``1e-05``).
fn py_float(v: f64) -> String {
    let s = format!("{v:?}");
    if s.contains('e') {
        // Rust writes 1e-5, Python 1e-05
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = e.strip_prefix('-').map_or(("+", e), |d| ("-", d));
        let sign = if sign == "+" { "+" } else { "-" };
        format!("{m}e{sign}{digits:0>2}")
    } else {
        s
    }
}

/// Gaussian kernel ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``.
///
/// Examples
/// --------
/// >>> from kernelstream.kernels import Gaussian
/// >>> k = Gaussian(sigma=1.0)
/// >>> round(float(k([[0.0, 0.0]], [[1.0, 1.0]])[0, 0]), 6)
/// 0.367879
#[pyclass(extends = PyKernel, module = "kernelstream.kernels", name = "Gaussian", frozen)]
pub struct PyGaussian;

#[pymethods]
impl PyGaussian {
    #[new]
    #[pyo3(signature = (sigma=Real(1.0)), text_signature = "(sigma=1.0)")]
    fn new(sigma: Real) -> PyResult<PyClassInitializer<Self>> {
        let inner = Kernel::from_spec("gaussian", &[sigma.0])?;
        Ok(PyClassInitializer::from(PyKernel { inner }).add_subclass(PyGaussian))
    }

    /// The width ``sigma``.
    #[getter]
    fn sigma(slf: PyRef<'_, Self>) -> f64 {
        slf.as_super().inner.spec().1[0]
    }
}

/// Laplacian kernel ``k(x, x') = exp(-||x - x'||_1 / sigma)``.
///
/// Examples
/// --------
/// >>> from kernelstream.kernels import Laplacian
/// >>> round(float(Laplacian(2.0)([[0.0]], [[1.0]])[0, 0]), 6)
/// 0.606531
#[pyclass(extends = PyKernel, module = "kernelstream.kernels", name = "Laplacian", frozen)]
pub struct PyLaplacian;

#[pymethods]
impl PyLaplacian {
    #[new]
    #[pyo3(signature = (sigma=Real(1.0)), text_signature = "(sigma=1.0)")]
    fn new(sigma: Real) -> PyResult<PyClassInitializer<Self>> {
        let inner = Kernel::from_spec("laplacian", &[sigma.0])?;
        Ok(PyClassInitializer::from(PyKernel { inner }).add_subclass(PyLaplacian))
    }

    /// The width ``sigma``.
    #[getter]
    fn sigma(slf: PyRef<'_, Self>) -> f64 {
        slf.as_super().inner.spec().1[0]
    }
}

/// Kernel ``k(x, x') = prod_l min(x_l, x'_l)`` (first-order Sobolev space with ``f(0) = 0``).
///
/// Zhang and Simon, Table 1 (Example 2); eigenbasis ``sqrt(2) sin((2j-1) pi x / 2)`` on [0, 1].
///
/// Examples
/// --------
/// >>> from kernelstream.kernels import Min
/// >>> float(Min()([[0.3]], [[0.7]])[0, 0])
/// 0.3
#[pyclass(extends = PyKernel, module = "kernelstream.kernels", name = "Min", frozen)]
pub struct PyMin;

#[pymethods]
impl PyMin {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyKernel { inner: Kernel::Min }).add_subclass(PyMin)
    }
}

/// Periodic second-order Sobolev kernel ``k(s, t) = -B4({s - t}) / 24`` (product over
/// coordinates).
///
/// ``B4(x) = x^4 - 2x^3 + x^2 - 1/30``, ``{.}`` the fractional part; Zhang and Simon, Table 2
/// (Example 1). ``k(x, x) = 1/720``.
///
/// Examples
/// --------
/// >>> from kernelstream.kernels import BernoulliPeriodic
/// >>> round(float(BernoulliPeriodic()([[0.2]], [[0.2]])[0, 0]) * 720, 12)
/// 1.0
#[pyclass(extends = PyKernel, module = "kernelstream.kernels", name = "BernoulliPeriodic", frozen)]
pub struct PyBernoulliPeriodic;

#[pymethods]
impl PyBernoulliPeriodic {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyKernel { inner: Kernel::BernoulliPeriodic })
            .add_subclass(PyBernoulliPeriodic)
    }
}

/// Additive second-order Sobolev kernel ``sum_l [x_l x'_l + x_l^2 x'_l^2 - B4({x_l - x'_l}) / 24]``.
///
/// The kernel of Zhang and Simon's additive example with the sign and scale of the Bernoulli
/// term corrected (eq. (85) prints ``+ B4({s - t})``, which is not positive semi-definite).
///
/// Examples
/// --------
/// >>> from kernelstream.kernels import AdditiveSobolev2
/// >>> round(float(AdditiveSobolev2()([[1.0, 0.0]], [[1.0, 0.0]])[0, 0]), 6)
/// 2.002778
#[pyclass(extends = PyKernel, module = "kernelstream.kernels", name = "AdditiveSobolev2", frozen)]
pub struct PyAdditiveSobolev2;

#[pymethods]
impl PyAdditiveSobolev2 {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyKernel { inner: Kernel::AdditiveSobolev2 })
            .add_subclass(PyAdditiveSobolev2)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKernel>()?;
    m.add_class::<PyGaussian>()?;
    m.add_class::<PyLaplacian>()?;
    m.add_class::<PyMin>()?;
    m.add_class::<PyBernoulliPeriodic>()?;
    m.add_class::<PyAdditiveSobolev2>()
}
