//! The learner protocol of the API contract, generated for every learner class
//! by [`learner_protocol!`]: `predict_one`, `learn_one`, `progressive_predict`
//! (GIL released), `predict_many`, `learn_many`, `n_seen`, `dim`, and the state
//! bytes used by pickling and model files (`_state_bytes` / `_set_state_bytes`: the
//! fields by name behind a header with the type's own format version,
//! [`crate::state::StateVersion`], and a checksum, [`crate::state::codec`], checked on
//! load; then the state validated as a whole: [`crate::state::ValidState`]).
//!
//! Every method runs inside [`crate::python::errors::guard`] (a panic becomes
//! `InternalError`), and the whole-stream methods stop on Ctrl-C at a round
//! boundary with a `KeyboardInterrupt` that carries `rounds_completed` (and
//! `predictions`, those of the completed rounds).

use crate::state::StateVersion;

/// Serialises a learner's core state: [`crate::state::codec`]'s header (magic, format
/// version, checksum), then its fields by name.
pub fn dump<T: serde::Serialize + StateVersion>(value: &T) -> crate::Result<Vec<u8>> {
    crate::state::codec::encode(value)
}

/// Restores a core state: no trailing bytes, the format version, the invariants of
/// the state, and a configuration equal to that of `fresh` (built from the pickled
/// parameters). Anything else is an `InputError`; nothing is changed by the caller
/// until this succeeds.
pub fn load<T: serde::de::DeserializeOwned + crate::state::ValidState + StateVersion>(
    bytes: &[u8],
    fresh: &T,
) -> crate::Result<T> {
    let mut value = decode_state::<T>(bytes)?;
    value.check_config(fresh).map_err(state_error)?;
    value.adopt_settings(fresh);
    Ok(value)
}

/// [`decode`] with every refusal an `InputError`: a stored value out of a parameter's
/// range (a `validate` that reuses the constructor's checks) is damaged data, not a
/// constructor argument (README, "Robustness").
pub fn decode_state<T: serde::de::DeserializeOwned + crate::state::ValidState + StateVersion>(
    bytes: &[u8],
) -> crate::Result<T> {
    decode::<T>(bytes).map_err(state_error)
}

/// A `ParameterError` raised while checking a state, as the `InputError` it is.
fn state_error(e: crate::KsError) -> crate::KsError {
    match e {
        crate::KsError::Parameter(m) => {
            crate::KsError::Input(format!("invalid learner state: {m}"))
        }
        e => e,
    }
}

/// Decodes a core state: its checksum, the format version, no trailing bytes, the
/// invariants of the state (its configuration is not compared with anything: [`load`] does that).
pub fn decode<T: serde::de::DeserializeOwned + crate::state::ValidState + StateVersion>(
    bytes: &[u8],
) -> crate::Result<T> {
    // Header, checksum and version first, then the fields by name (codec).
    let value: T = crate::state::codec::decode(bytes)?;
    value.validate()?;
    Ok(value)
}

/// Implements the protocol methods for a `#[pyclass]` with a field `inner`
/// implementing [`crate::learners::OnlineLearner`] + serde.
#[macro_export]
macro_rules! learner_protocol {
    ($py_ty:ty, $core_ty:ty) => {
        #[pyo3::pymethods]
        impl $py_ty {
            /// Pure for every reader; keeps its work for a `learn_one` on the same `x`.
            fn predict_one(&mut self, x: numpy::PyReadonlyArray1<'_, f64>) -> pyo3::PyResult<f64> {
                $crate::python::errors::guard(|| {
                    let x = $crate::python::convert::vec1(&x);
                    Ok($crate::stream::predict_one_keep(&mut self.inner, &x)?)
                })
            }

            /// `w`: the sample weight (docs/choices.md, "Sample weights").
            #[pyo3(signature = (x, y, w = 1.0))]
            fn learn_one(
                &mut self,
                x: numpy::PyReadonlyArray1<'_, f64>,
                y: f64,
                w: f64,
            ) -> pyo3::PyResult<()> {
                $crate::python::errors::guard(|| {
                    let x = $crate::python::convert::vec1(&x);
                    $crate::interrupt::start();
                    Ok($crate::stream::learn_one_weighted(&mut self.inner, &x, y, w)?)
                })
            }

            #[pyo3(signature = (x, y, sample_weight = None))]
            fn progressive_predict<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                x: numpy::PyReadonlyArray2<'py, f64>,
                y: numpy::PyReadonlyArray1<'py, f64>,
                sample_weight: Option<numpy::PyReadonlyArray1<'py, f64>>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<f64>>> {
                $crate::python::errors::guard(|| {
                    let (xs, n, d) = $crate::python::convert::mat2(&x);
                    let ys = $crate::python::convert::vec1(&y);
                    let ws = sample_weight.as_ref().map(|w| $crate::python::convert::vec1(w));
                    let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
                    let ws: Option<&[f64]> = ws.as_deref();
                    let inner = &mut self.inner;
                    let mut out = Vec::new();
                    let res = py.detach(|| {
                        $crate::stream::progressive_predict_weighted_into(
                            inner, xs, n, d, ys, ws, &mut out,
                        )
                    });
                    $crate::python::errors::stream_result(py, res, out.len(), Some(&out))?;
                    Ok(numpy::PyArray1::from_vec(py, out))
                })
            }

            /// A single row keeps its work for a following `learn_many` of that row.
            fn predict_many<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                x: numpy::PyReadonlyArray2<'py, f64>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<f64>>> {
                $crate::python::errors::guard(|| {
                    let (xs, n, d) = $crate::python::convert::mat2(&x);
                    let xs: &[f64] = &xs;
                    let inner = &mut self.inner;
                    let mut out = Vec::new();
                    let res = py.detach(|| {
                        $crate::stream::predict_many_keep_into(inner, xs, n, d, &mut out)
                    });
                    $crate::python::errors::stream_result(py, res, out.len(), Some(&out))?;
                    Ok(numpy::PyArray1::from_vec(py, out))
                })
            }

            /// `(means, stds)`: the prediction and predictive standard deviation of each
            /// row as the next round (pure; a `ParameterError` if the learner has none).
            #[allow(clippy::type_complexity)]
            fn predict_std_many<'py>(
                &self,
                py: pyo3::Python<'py>,
                x: numpy::PyReadonlyArray2<'py, f64>,
            ) -> pyo3::PyResult<(
                pyo3::Bound<'py, numpy::PyArray1<f64>>,
                pyo3::Bound<'py, numpy::PyArray1<f64>>,
            )> {
                $crate::python::errors::guard(|| {
                    let (xs, n, d) = $crate::python::convert::mat2(&x);
                    let xs: &[f64] = &xs;
                    let inner = &self.inner;
                    let (mut means, mut stds) = (Vec::new(), Vec::new());
                    let res = py.detach(|| {
                        $crate::uncertainty::predict_std_many_into(
                            inner, xs, n, d, &mut means, &mut stds,
                        )
                    });
                    $crate::python::errors::stream_result(py, res, means.len(), Some(&means))?;
                    Ok((numpy::PyArray1::from_vec(py, means), numpy::PyArray1::from_vec(py, stds)))
                })
            }

            /// `(predictions, stds, noise_stds)` of the online protocol: each made before
            /// its label.
            #[allow(clippy::type_complexity)]
            fn progressive_predict_std<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                x: numpy::PyReadonlyArray2<'py, f64>,
                y: numpy::PyReadonlyArray1<'py, f64>,
            ) -> pyo3::PyResult<(
                pyo3::Bound<'py, numpy::PyArray1<f64>>,
                pyo3::Bound<'py, numpy::PyArray1<f64>>,
                pyo3::Bound<'py, numpy::PyArray1<f64>>,
            )> {
                $crate::python::errors::guard(|| {
                    let (xs, n, d) = $crate::python::convert::mat2(&x);
                    let ys = $crate::python::convert::vec1(&y);
                    let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
                    let inner = &mut self.inner;
                    let mut out = $crate::uncertainty::StdRounds::default();
                    let res = py.detach(|| {
                        $crate::uncertainty::progressive_predict_std_into(
                            inner, xs, n, d, ys, &mut out,
                        )
                    });
                    let done = out.preds.len();
                    $crate::python::errors::stream_result(py, res, done, Some(&out.preds))?;
                    Ok((
                        numpy::PyArray1::from_vec(py, out.preds),
                        numpy::PyArray1::from_vec(py, out.stds),
                        numpy::PyArray1::from_vec(py, out.noises),
                    ))
                })
            }

            #[pyo3(signature = (x, y, sample_weight = None))]
            fn learn_many<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                x: numpy::PyReadonlyArray2<'py, f64>,
                y: numpy::PyReadonlyArray1<'py, f64>,
                sample_weight: Option<numpy::PyReadonlyArray1<'py, f64>>,
            ) -> pyo3::PyResult<()> {
                $crate::python::errors::guard(|| {
                    let (xs, n, d) = $crate::python::convert::mat2(&x);
                    let ys = $crate::python::convert::vec1(&y);
                    let ws = sample_weight.as_ref().map(|w| $crate::python::convert::vec1(w));
                    let (xs, ys): (&[f64], &[f64]) = (&xs, &ys);
                    let ws: Option<&[f64]> = ws.as_deref();
                    let inner = &mut self.inner;
                    let mut done = 0;
                    let res = py.detach(|| {
                        $crate::stream::learn_many_weighted(inner, xs, n, d, ys, ws, &mut done)
                    });
                    $crate::python::errors::stream_result(py, res, done, None)
                })
            }

            /// The noise level behind the predictive std (None: the learner has none;
            /// NaN: no estimate yet).
            #[getter]
            fn noise_std(&self) -> Option<f64> {
                $crate::learners::OnlineLearner::noise_std(&self.inner)
            }

            #[getter]
            fn n_seen(&self) -> u64 {
                $crate::learners::OnlineLearner::n_seen(&self.inner)
            }

            #[getter]
            fn dim(&self) -> usize {
                $crate::learners::OnlineLearner::dim(&self.inner)
            }

            #[getter]
            fn input_dim(&self) -> Option<usize> {
                $crate::learners::OnlineLearner::input_dim(&self.inner)
            }

            fn _state_bytes<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyBytes>> {
                $crate::python::errors::guard(|| {
                    let bytes = $crate::python::protocol::dump(&self.inner)?;
                    Ok(pyo3::types::PyBytes::new(py, &bytes))
                })
            }

            /// Replaces the state by decoded `data` (validated against this object's
            /// configuration); on any error the object is unchanged.
            fn _set_state_bytes(&mut self, data: &[u8]) -> pyo3::PyResult<()> {
                $crate::python::errors::guard(|| {
                    self.inner = $crate::python::protocol::load::<$core_ty>(data, &self.inner)?;
                    Ok(())
                })
            }

            /// `{name: value}` of the constructor parameters this learner's state holds
            /// (`python::state_params`).
            fn _params<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::python::errors::guard(|| {
                    $crate::python::state_params::state_params(py, &self.inner)
                })
            }

            /// [`Self::_params`] of a state given as bytes (its version and invariants
            /// checked; an `InputError` otherwise).
            #[staticmethod]
            fn _params_of_state<'py>(
                py: pyo3::Python<'py>,
                data: &[u8],
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::python::errors::guard(|| {
                    let value = $crate::python::protocol::decode_state::<$core_ty>(data)?;
                    $crate::python::state_params::state_params(py, &value)
                })
            }

            /// Refuses, as a first `learn_one` of a `d`-feature row would (before anything
            /// of that width is allocated), inputs of `d` features (the adapters call it
            /// before building their first row).
            fn _check_width(&self, d: usize) -> pyo3::PyResult<()> {
                $crate::python::errors::guard(|| {
                    match $crate::learners::OnlineLearner::input_dim(&self.inner) {
                        Some(d0) if d0 != d => Err($crate::KsError::Input(format!(
                            "input has {d} features but this learner was fed {d0}-dimensional \
                             inputs before"
                        ))
                        .into()),
                        Some(_) => Ok(()),
                        None => {
                            Ok($crate::learners::OnlineLearner::check_input_dim(&self.inner, d)?)
                        }
                    }
                })
            }

            /// Widens the learner to `d` inputs, more than before, as an exact
            /// zero-extension (an `InputError`, the learner unchanged, where it is not
            /// exact; docs/streams.md, "Rows that grow").
            fn _widen(&mut self, d: usize) -> pyo3::PyResult<()> {
                $crate::python::errors::guard(|| {
                    Ok($crate::learners::OnlineLearner::widen_inputs(&mut self.inner, d)?)
                })
            }

            /// The format version of this class's pickled state.
            #[staticmethod]
            fn _state_version() -> u32 {
                <$core_ty as $crate::state::StateVersion>::STATE_VERSION
            }

            fn __copy__(&self) -> Self {
                Self { inner: self.inner.clone() }
            }

            /// Takes the state of `fresh` (a new object of the same class) if this one
            /// has seen no data; `set_params` uses it. The check and the swap happen
            /// under this object's borrow, so they cannot interleave with a call that
            /// learns (which then fails with "Already borrowed" or runs before/after).
            fn _adopt(&mut self, mut fresh: pyo3::PyRefMut<'_, Self>) -> pyo3::PyResult<()> {
                let n = $crate::learners::OnlineLearner::n_seen(&self.inner);
                if n != 0 {
                    return Err($crate::KsError::Parameter(format!(
                        "set_params on a learner that has seen {n} rounds: parameters can only \
                         change before learning (build a new object instead)"
                    ))
                    .into());
                }
                std::mem::swap(&mut self.inner, &mut fresh.inner);
                Ok(())
            }
        }
    };
}
