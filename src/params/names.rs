//! A choice among names, declared once: [`names!`](crate::names!) writes the enum, its
//! table of names, `name()`, `from_name()` and the parameter's domain from one list.

/// A choice among names declared by [`names!`](crate::names!) (the bindings convert
/// every such type by its name).
pub trait Named: Sized {
    /// Every name, in declaration order.
    const NAMES: &'static [&'static str];
    /// The name of the value.
    fn name(&self) -> &'static str;
    /// The value of a name.
    fn from_name(name: &str) -> crate::error::Result<Self>;
}

/// Declares a fieldless enum whose values are names: `pub enum Loss as "loss" {
/// Squared = "squared", ... }` (`"loss"`: the parameter the error of a wrong name names).
/// Derived from the one list: the enum, `NAMES` (in order), `DOMAIN` (the
/// [`Constraint`](crate::params::Constraint) `one_of(NAMES)` of a parameter row),
/// `name()`, `from_name()` (a wrong name is refused by `DOMAIN`'s words) and the
/// [`Checked`](crate::params::Checked) and [`Named`] impls.
#[macro_export]
#[doc(hidden)]
macro_rules! names {
    (
        $(#[$m:meta])*
        pub enum $t:ident as $param:literal {
            $( $(#[$vm:meta])* $v:ident = $n:literal, )+
        }
    ) => {
        $(#[$m])*
        pub enum $t {
            $( $(#[$vm])* $v, )+
        }

        impl $t {
            /// Every name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($n),+];
            /// The domain of a parameter taking one of the names.
            pub const DOMAIN: $crate::params::Constraint = $crate::params::one_of(Self::NAMES);

            /// The name of the value.
            pub fn name(&self) -> &'static str {
                match self {
                    $( $t::$v => $n, )+
                }
            }

            /// The value of a name (a ValueError naming the parameter and the names).
            pub fn from_name(name: &str) -> $crate::error::Result<Self> {
                match name {
                    $( $n => Ok($t::$v), )+
                    _ => Self::DOMAIN.refuse($param, format!("{name:?}")),
                }
            }
        }

        impl $crate::params::Named for $t {
            const NAMES: &'static [&'static str] = $t::NAMES;
            fn name(&self) -> &'static str {
                $t::name(self)
            }
            fn from_name(name: &str) -> $crate::error::Result<Self> {
                $t::from_name(name)
            }
        }

        impl $crate::params::ToValue for $t {
            fn to_value(&self) -> $crate::params::Value {
                $crate::params::Value::Str(self.name().to_string())
            }
        }

        impl $crate::params::Checked for $t {
            fn check_in(&self, name: &str, c: &$crate::params::Constraint) -> $crate::error::Result<()> {
                $crate::params::Checked::check_in(&self.name().to_string(), name, c)
            }
        }
    };
}
