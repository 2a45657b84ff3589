//! Parameter values between a parameter struct and a binding, in both directions,
//! without naming the binding: the core says which field a keyword sets and what each
//! field holds; the bindings (`src/python/params.rs`) convert their objects.
//!
//! - Given values: a binding's value type implements [`ParamInput`] and, for each
//!   field type it accepts, [`ReadAs`]; [`params!`](crate::params!) derives
//!   [`SetField`] for every such value type, so the struct sets the field a keyword
//!   names by the binding's own conversion of that field type.
//! - Reported values: each field type converts to a [`Value`] ([`ToValue`]), the
//!   plain data a binding turns into its objects (`Params::values`, the defaults
//!   `_core.registry()` reports; [`crate::state::StateParams`], the parameters a state
//!   holds).

use crate::kernels::Kernel;

/// A field's value as plain data.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An unset optional field.
    None,
    Bool(bool),
    /// A count or a seed (`usize`, `u64`, `u32`).
    Int(u64),
    Float(f64),
    /// A string, or the name of a choice among names (`from_name`/`name`).
    Str(String),
    /// A sequence or a pair (immutable, as the defaults in the Python signatures).
    Tuple(Vec<Value>),
    Kernel(Kernel),
    /// A row-major `rows x cols` matrix.
    Matrix {
        values: Vec<f64>,
        rows: usize,
        cols: usize,
    },
}

/// A field type's value as plain data.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

/// A value given for a parameter, as a binding holds it; its conversions fail with
/// `Error`.
pub trait ParamInput {
    type Error;
}

/// A given value that the binding converts to a field of type `T`; `key` is the
/// parameter's name, for the error.
pub trait ReadAs<T>: ParamInput {
    fn read_as(&self, key: &str) -> Result<T, Self::Error>;
}

/// A parameter struct whose fields can be set from values of type `I` (derived by
/// [`params!`](crate::params!) for every `I` that reads each field type).
pub trait SetField<I: ParamInput + ?Sized> {
    /// Sets the field named `key` from `v` (false: no such field, nothing changed).
    fn set_field(&mut self, key: &str, v: &I) -> Result<bool, I::Error>;
}

macro_rules! to_value {
    ($($t:ty => |$x:ident| $e:expr;)*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                let $x = self;
                $e
            }
        }
    )*};
}
to_value! {
    f64 => |x| Value::Float(*x);
    usize => |x| Value::Int(*x as u64);
    u64 => |x| Value::Int(*x);
    u32 => |x| Value::Int(u64::from(*x));
    bool => |x| Value::Bool(*x);
    String => |x| Value::Str(x.clone());
    (f64, f64) => |x| Value::Tuple(vec![Value::Float(x.0), Value::Float(x.1)]);
    Kernel => |x| Value::Kernel(*x);
    crate::learners::nystrom_awv::FixedDictionary => |x| Value::Matrix {
        values: x.points.clone(),
        rows: x.points.len() / x.d.max(1),
        cols: x.d,
    };
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::None, T::to_value)
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(&self) -> Value {
        Value::Tuple(self.iter().map(T::to_value).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_mirror_the_field_types() {
        assert_eq!(Some(2.5).to_value(), Value::Float(2.5));
        assert_eq!(None::<u32>.to_value(), Value::None);
        assert_eq!(vec![1usize, 2].to_value(), Value::Tuple(vec![Value::Int(1), Value::Int(2)]));
        assert_eq!(
            crate::learners::Loss::from_name("hinge").unwrap().to_value(),
            Value::Str("hinge".into())
        );
        let dict = crate::learners::nystrom_awv::FixedDictionary {
            points: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            d: 3,
        };
        assert_eq!(
            dict.to_value(),
            Value::Matrix { values: dict.points.clone(), rows: 2, cols: 3 }
        );
    }
}
