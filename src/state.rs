//! Decoded state is validated as a whole before it is accepted.
//!
//! Every type that can be restored from bytes (learners, aggregators, the KORS
//! sampler and their parts) implements [`ValidState`]: `validate` checks the
//! invariants a constructor and the updates maintain (dimensions agree with each
//! other and with the buffers' lengths, sizes within the constructor's caps,
//! finite numbers where the math needs them), and `check_config` checks that the
//! configuration carried by the state equals that of a fresh object built from
//! the pickled parameters (which went through the constructor's checks). The
//! bindings call both from their one decoding path (`python::protocol::load`), after
//! [`codec`] checked the bytes' header, checksum and format version.

use crate::error::{KsError, Result};
use crate::params::{Params, ToValue, Value};

pub mod bounds;
pub mod codec;
pub mod crc32;

/// The format version of a type's serialised state, declared next to the type (each
/// learner, aggregator and sampler that the bindings pickle). Bump it when a field that
/// serde writes changes: a state of another version is refused with a message that
/// names both versions (`python::protocol::load`), never misread. Fields are encoded by
/// name ([`codec`]): adding a field with `#[serde(default)]` (an option whose default is
/// the behaviour before it) or dropping one is not such a change and keeps the version;
/// nor is changing a parameter's default, when its declaration gives the value a state
/// without it implies (`absent` in [`crate::params!`]: AutoKernel's `warm_neighbour`). A
/// [`crate::mixture::Mixture`]
/// or [`crate::mixture::AutoKernel`] holds its experts' states, so theirs moves with any
/// of those (`mixture::state_versions_are_pinned` checks it).
pub trait StateVersion {
    const STATE_VERSION: u32;
}

/// `state_version!(Type, n)`: the [`StateVersion`] of `Type` is `n`.
macro_rules! state_version {
    ($t:ty, $v:expr) => {
        impl $crate::state::StateVersion for $t {
            const STATE_VERSION: u32 = $v;
        }
    };
}
pub(crate) use state_version;

pub trait ValidState {
    /// The invariants of the state (sizes agree, caps, finiteness).
    fn validate(&self) -> Result<()>;
    /// The configuration equals that of `fresh`, an object built from the same parameters.
    fn check_config(&self, fresh: &Self) -> Result<()>;
    /// Takes from `fresh` the run-time settings that are not part of the state
    /// (they change speed, not results: a block size).
    fn adopt_settings(&mut self, _fresh: &Self) {}
}

fn bad(msg: String) -> KsError {
    KsError::Input(format!("invalid learner state: {msg}"))
}

/// `Err` with `msg` unless `cond`.
pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<()> {
    if cond {
        Ok(())
    } else {
        Err(bad(msg()))
    }
}

/// `v.len() == n`.
pub fn len_is(name: &str, v: usize, n: usize) -> Result<()> {
    ensure(v == n, || format!("{name} holds {v} values, expected {n}"))
}

/// `n` is at most `cap`.
pub fn at_most(name: &str, n: usize, cap: usize) -> Result<()> {
    ensure(n <= cap, || format!("{name} = {n} is above its limit {cap}"))
}

/// Every value is finite.
pub fn finite(name: &str, v: &[f64]) -> Result<()> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(i) => Err(bad(format!("{name}[{i}] = {} is not finite", v[i]))),
    }
}

/// `same_fields!(self, fresh; a, b: "label", ...)`: [`same`] on each listed field of
/// the two objects (named by the field, or by the label after a colon), in order; the
/// first that differs is the error. The body of most `check_config`s.
macro_rules! same_fields {
    (@label $f:ident $l:literal) => {
        $l
    };
    (@label $f:ident) => {
        stringify!($f)
    };
    ($a:expr, $b:expr; $($f:ident $(: $l:literal)?),+ $(,)?) => {{
        $($crate::state::same($crate::state::same_fields!(@label $f $($l)?), &$a.$f, &$b.$f)?;)+
        Ok(())
    }};
}
pub(crate) use same_fields;

/// A configuration field equals the one built from the pickled parameters.
pub fn same<T: PartialEq + std::fmt::Debug>(name: &str, got: &T, want: &T) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(KsError::Input(format!(
            "the pickled parameters do not match the learner state: {name} is {want:?} in the \
             parameters but {got:?} in the state"
        )))
    }
}

/// `rows x cols` without overflow, or an error.
pub fn product(name: &str, rows: usize, cols: usize) -> Result<usize> {
    rows.checked_mul(cols).ok_or_else(|| bad(format!("{name}: {rows} x {cols} overflows")))
}

/// Number of doubles the state may hold at most (the memory ceiling).
pub fn within_memory(name: &str, doubles: u128) -> Result<()> {
    crate::limits::check_doubles(name, Some(doubles)).map_err(|e| bad(e.to_string()))
}

impl<T: ValidState> ValidState for Option<T> {
    fn validate(&self) -> Result<()> {
        self.as_ref().map_or(Ok(()), |s| s.validate())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        match (self, fresh) {
            (Some(a), Some(b)) => a.check_config(b),
            (None, None) => Ok(()),
            _ => Err(bad("a part of the state is present in one and missing in the other".into())),
        }
    }
}

/// The parameters a state holds, read back for pickling (the bindings' `_params()` and
/// `_params_of_state(bytes)`): a pickle keeps each parameter once, in the core state
/// when the state holds it in the form it was given, else beside it in the Python
/// envelope (`python/kernelstream/_wrapped.py`).
///
/// A learner lists the fields of its state that are constructor parameters with
/// [`state_params!`](crate::state_params!) (`name` or `field as "name"`); a learner
/// that lists none (the default) leaves every parameter to the envelope.
pub trait StateParams {
    /// `(name, value in the constructor's form)` of each parameter the state holds
    /// (serialised fields only, so that a decoded state reports what the state it was
    /// written from reported).
    fn state_params(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
}

/// Every field of a parameter struct (a state that keeps its whole struct).
pub fn all_params<P: Params>(p: &P) -> Vec<(&'static str, Value)> {
    P::SPECS.iter().map(|s| s.name).zip(p.values()).collect()
}

/// `state_params!(Type; field, field as "name", ...)`: [`StateParams`] of `Type` from
/// its fields (each reported as the constructor's keyword of that name).
#[macro_export]
#[doc(hidden)]
macro_rules! state_params {
    ($t:ty; $($field:ident $(as $name:literal)?),+ $(,)?) => {
        impl $crate::state::StateParams for $t {
            fn state_params(&self) -> Vec<(&'static str, $crate::params::Value)> {
                vec![$((
                    $crate::state_params!(@name $field $(, $name)?),
                    $crate::params::ToValue::to_value(&self.$field),
                ),)+]
            }
        }
    };
    (@name $field:ident) => { stringify!($field) };
    (@name $field:ident, $name:literal) => { $name };
}

// A Mixture's state holds its experts and rule, not the Python objects its parameters
// are: every parameter stays in the envelope.
impl StateParams for crate::mixture::Mixture {}

/// AutoKernel's parameters, held whole by its state as they were given.
impl StateParams for crate::mixture::AutoKernel {
    fn state_params(&self) -> Vec<(&'static str, Value)> {
        all_params(self.config())
    }
}

/// OnlineProjection's plain settings (the basis, the count and the prefix are held in
/// derived forms: the basis' functions, a pairs flag, a prefix degree).
impl StateParams for crate::learners::OnlineProjection {
    fn state_params(&self) -> Vec<(&'static str, Value)> {
        let c = self.config();
        vec![
            ("alpha", c.alpha.to_value()),
            ("c", c.c.to_value()),
            ("additive", c.additive.to_value()),
            ("refresh", c.refresh.to_value()),
            ("tol", c.tol.to_value()),
        ]
    }
}
