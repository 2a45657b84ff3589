//! Learner parameters, each declared once.
//!
//! Every learner has a parameter struct (`TaylorAwvParams`, ...) declared with
//! [`params!`](crate::params!) next to the learner: each field with its type, its
//! default, its kind and its domain, a typed [`Constraint`]. The macro derives the
//! struct (`Clone, Debug, PartialEq`, serde), its `Default`, its [`Params`] table and
//! its `validate`: each field checked against its constraint (the only check of it;
//! the docs' domain text and the fuzzers' values come from the same constraint), then
//! the learner's `relations`, the checks no single field's constraint states (between
//! parameters, the memory a combination implies). The constructors
//! take the struct, so a Rust caller writes
//! `TaylorAwv::new(&TaylorAwvParams { sigma: 2.0, ..Default::default() })`. The Python
//! bindings fill the struct from keyword arguments ([`SetField`]) and `_core.registry()`
//! reports the defaults by converting `Default::default()` ([`Params::values`]): the
//! default is written once, and the macro names no binding ([`Value`], [`ReadAs`]). A
//! parameter that several learners share is written once too, as a row fragment
//! ([`shared_rows!`]).

mod constraint;
mod names;
mod value;

pub use names::Named;

pub use constraint::{
    above, at_least, between, flag, object, one_of, Checked, Constraint, Domain, DISCOUNT,
    FRACTION, NON_NEGATIVE, SCALE, WHOLE,
};
pub use value::{ParamInput, ReadAs, SetField, ToValue, Value};

use crate::error::Result;

/// One parameter as `_core.registry()` reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name (the Python keyword).
    pub name: &'static str,
    /// `"float"`, `"int"`, `"bool"`, `"str"`, `"seq"`, `"kernel"`, `"kernels"` or `"object"`.
    pub kind: &'static str,
    /// The accepted values: the check, and (displayed) the docs' words.
    pub domain: Constraint,
    /// No usable default: the caller must pass it (a kernel, the experts).
    pub required: bool,
}

/// A learner's parameter struct: defaults, the description of each field, one check.
pub trait Params: Default + Clone + std::fmt::Debug + PartialEq {
    /// The fields, in declaration order.
    const SPECS: &'static [ParamSpec];
    /// Every check of the values (the constructor calls it first).
    fn check(&self) -> Result<()>;
    /// The fields' values, in the order of `SPECS`.
    fn values(&self) -> Vec<Value>;
}

/// The parameters a saved state implies for the fields it lacks: each field's declared
/// `absent` value (the behaviour of the states saved before its default changed), else
/// its default. [`params!`](crate::params!) makes it the serde default of every
/// parameter struct: a state that lacks a field (added after it was saved) decodes.
pub trait AbsentDefault: Sized {
    /// The struct of a state that lacks every field.
    fn absent_default() -> Self;
}

/// [`AbsentDefault::absent_default`] as a function (the serde default of a struct).
pub fn absent_default<T: AbsentDefault>() -> T {
    T::absent_default()
}

/// A required parameter left unset (`None`) in a parameter struct.
pub fn required<T>(learner: &str, name: &str, v: &Option<T>) -> Result<()> {
    match v {
        Some(_) => Ok(()),
        None => crate::param_err!("{learner} needs {name}"),
    }
}

/// Declares a parameter struct: fields `name: Type = default => "kind", constraint;`
/// (a const [`Constraint`]; append `, required` for a field without a usable default,
/// `as "Name"` after the field name when the Python keyword differs;
/// `= default, absent = value =>` when a saved state that lacks the field was saved with
/// another behaviour than the default, a default changed after the field was added:
/// the state decodes with `value`, [`absent_default`]). The struct must
/// also have an inherent `fn relations(&self) -> Result<()>` (the checks between
/// fields; `Ok(())` if none); the macro writes `validate`, which checks every field
/// against its constraint and then calls it.
///
/// A row `use path::to::fragment;` stands for the rows of a fragment: the rows of a
/// parameter that several learners share, written once ([`shared_rows!`]; for example
/// `crate::learners::losses::loss_row`).
#[macro_export]
#[doc(hidden)]
macro_rules! params {
    ($(#[$sm:meta])* pub struct $name:ident { $($rows:tt)* }) => {
        $crate::params! { @rows [$(#[$sm])* pub struct $name] [] $($rows)* }
    };
    // The rows one by one; a fragment puts its rows in front of the rest.
    (@rows $head:tt $done:tt use $($fragment:ident)::+; $($rest:tt)*) => {
        $($fragment)::+! { $head $done $($rest)* }
    };
    (@rows $head:tt [$($done:tt)*]
        $(#[$fm:meta])* $field:ident $(as $py:literal)? : $ty:ty = $default:expr
            $(, absent = $absent:expr)? => $kind:literal, $domain:expr $(, $req:ident)?;
            $($rest:tt)*
    ) => {
        $crate::params! { @rows $head [$($done)*
            $(#[$fm])* $field $(as $py)? : $ty = $default $(, absent = $absent)?
                => $kind, $domain $(, $req)?;
        ] $($rest)* }
    };
    (@rows [$($head:tt)*] [$($done:tt)*]) => {
        $crate::params! { @struct $($head)* { $($done)* } }
    };
    (
        @struct
        $(#[$sm:meta])*
        pub struct $name:ident {
            $(
                $(#[$fm:meta])*
                $field:ident $(as $py:literal)? : $ty:ty = $default:expr
                    $(, absent = $absent:expr)? => $kind:literal, $domain:expr $(, $req:ident)?;
            )*
        }
    ) => {
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default = "crate::params::absent_default")]
        $(#[$sm])*
        pub struct $name {
            $( $(#[$fm])* pub $field: $ty, )*
        }

        impl $name {
            /// Every check of the values: each field against its declared constraint,
            /// then the relations between fields (the constructors call it first).
            pub fn validate(&self) -> $crate::error::Result<()> {
                $( $crate::params::Checked::check_in(
                    &self.$field,
                    $crate::params!(@name $field $(, $py)?),
                    &$domain,
                )?; )*
                self.relations()
            }
        }

        impl $crate::params::AbsentDefault for $name {
            #[allow(unused_mut)]
            fn absent_default() -> Self {
                let mut p = Self::default();
                $( $( p.$field = $absent; )? )*
                p
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::params::Params for $name {
            const SPECS: &'static [$crate::params::ParamSpec] = &[
                $( $crate::params::ParamSpec {
                    name: $crate::params!(@name $field $(, $py)?),
                    kind: $kind,
                    domain: $domain,
                    required: $crate::params!(@req $($req)?),
                }, )*
            ];
            fn check(&self) -> $crate::error::Result<()> {
                self.validate()
            }
            fn values(&self) -> Vec<$crate::params::Value> {
                vec![ $( $crate::params::ToValue::to_value(&self.$field), )* ]
            }
        }

        impl<I> $crate::params::SetField<I> for $name
        where
            I: $crate::params::ParamInput + ?Sized,
            $( I: $crate::params::ReadAs<$ty>, )*
        {
            fn set_field(&mut self, key: &str, v: &I) -> ::core::result::Result<bool, I::Error> {
                $(
                    if key == $crate::params!(@name $field $(, $py)?) {
                        self.$field = $crate::params::ReadAs::<$ty>::read_as(v, key)?;
                        return Ok(true);
                    }
                )*
                Ok(false)
            }
        }
    };
    (@name $field:ident) => { stringify!($field) };
    (@name $field:ident, $py:literal) => { $py };
    (@req) => { false };
    (@req required) => { true };
}

/// Declares fragments of [`params!`] rows, each a `pub(crate)` macro of the calling
/// module that a parameter struct names in a row `use path::NAME;`:
/// `shared_rows! { /// doc
/// NAME { rows } ... }`.
macro_rules! shared_rows {
    ($($(#[$m:meta])* $name:ident { $($rows:tt)* })*) => {
        $crate::params::shared_rows! { @with ($) $($(#[$m])* $name { $($rows)* })* }
    };
    // `$d` is a `$` for the macros it defines.
    (@with ($d:tt) $($(#[$m:meta])* $name:ident { $($rows:tt)* })*) => {$(
        $(#[$m])*
        macro_rules! $name {
            ($d head:tt $d done:tt $d($d rest:tt)*) => {
                $crate::params! { @rows $d head $d done $($rows)* $d($d rest)* }
            };
        }
        pub(crate) use $name;
    )*};
}
pub(crate) use shared_rows;
