//! The values one parameter accepts, typed: the check the core runs on it, the words the
//! docs and `_core.registry()` show, and the structured form from which the fuzzers and
//! the tests draw valid and invalid values (scikit-learn's `_parameter_constraints`).

use crate::error::Result;
use std::fmt;

/// What the values of a parameter (or of each entry of a sequence) must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// `True` or `False`.
    Flag,
    /// A finite number from `lo` to `hi` (a bound is included unless open; an infinite
    /// one is no bound).
    Interval { lo: f64, hi: f64, lo_open: bool, hi_open: bool },
    /// One of the names.
    Options(&'static [&'static str]),
    /// An object whose type checks it when it is converted (a kernel, an array), in words.
    Object(&'static str),
}

/// A [`Domain`] with what surrounds it: None accepted, a sequence of such values, and
/// what the learner's `relations` checks beyond (between parameters), in words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constraint {
    pub domain: Domain,
    /// `None` is accepted too (the core resolves it).
    pub or_none: bool,
    /// A sequence whose every entry is in `domain`.
    pub each: bool,
    /// A sequence with at least one entry.
    pub non_empty: bool,
    /// What the learner's `relations` adds (empty: nothing), in words.
    pub note: &'static str,
}

const fn of(domain: Domain) -> Constraint {
    Constraint { domain, or_none: false, each: false, non_empty: false, note: "" }
}

/// `True` or `False`.
pub const fn flag() -> Constraint {
    of(Domain::Flag)
}

/// A finite number in `[lo, hi]` (see [`Constraint::open_lo`], [`Constraint::open_hi`]).
pub const fn between(lo: f64, hi: f64) -> Constraint {
    of(Domain::Interval { lo, hi, lo_open: false, hi_open: false })
}

/// A finite number `>= lo`.
pub const fn at_least(lo: f64) -> Constraint {
    between(lo, f64::INFINITY)
}

/// A finite number `> lo`.
pub const fn above(lo: f64) -> Constraint {
    at_least(lo).open_lo()
}

/// One of `names`.
pub const fn one_of(names: &'static [&'static str]) -> Constraint {
    of(Domain::Options(names))
}

/// An object checked by its type, described in words.
pub const fn object(words: &'static str) -> Constraint {
    of(Domain::Object(words))
}

/// A scale parameter (a width, a regularisation, a step size): [`crate::error::scale`]'s
/// range, outside which its square or inverse square under- or overflows.
pub const SCALE: Constraint = between(crate::error::SCALE_MIN, crate::error::SCALE_MAX);
/// A finite number in `[0, SCALE_MAX]` ([`crate::error::non_negative`]).
pub const NON_NEGATIVE: Constraint = between(0.0, crate::error::SCALE_MAX);
/// A forgetting factor: `(0, 1]` (1: none).
pub const DISCOUNT: Constraint = between(0.0, 1.0).open_lo();
/// A fraction `[0, 1]` (a rate, a probability).
pub const FRACTION: Constraint = between(0.0, 1.0);
/// A seed or a count without a bound: any whole number the type holds.
pub const WHOLE: Constraint = at_least(0.0);

impl Constraint {
    /// The lower bound excluded.
    pub const fn open_lo(mut self) -> Self {
        if let Domain::Interval { lo, hi, hi_open, .. } = self.domain {
            self.domain = Domain::Interval { lo, hi, lo_open: true, hi_open };
        }
        self
    }
    /// The upper bound excluded.
    pub const fn open_hi(mut self) -> Self {
        if let Domain::Interval { lo, hi, lo_open, .. } = self.domain {
            self.domain = Domain::Interval { lo, hi, lo_open, hi_open: true };
        }
        self
    }
    /// `None` accepted too.
    pub const fn or_none(mut self) -> Self {
        self.or_none = true;
        self
    }
    /// A sequence of such values.
    pub const fn each(mut self) -> Self {
        self.each = true;
        self
    }
    /// A sequence of such values, at least one.
    pub const fn non_empty(mut self) -> Self {
        self.each = true;
        self.non_empty = true;
        self
    }
    /// What the learner's `relations` checks beyond, in words.
    pub const fn note(mut self, note: &'static str) -> Self {
        self.note = note;
        self
    }

    /// Whether the number `v` is in the domain (a non-numeric domain takes any number).
    pub fn admits(&self, v: f64) -> bool {
        match self.domain {
            Domain::Interval { lo, hi, lo_open, hi_open } => {
                v.is_finite()
                    && if lo_open { v > lo } else { v >= lo }
                    && if hi_open { v < hi } else { v <= hi }
            }
            _ => true,
        }
    }

    /// The check of one value (`got`: how to show it).
    fn refuse<T>(&self, name: &str, got: impl fmt::Display) -> Result<T> {
        crate::param_err!("{name} must be {self}, got {got}")
    }
}

/// A number as the docs show it: `0.5`, `20000`, `1e-100`, `5.56268464626801e-309`.
struct Num(f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        let whole = a == a.trunc() && a < 1e16;
        if a != 0.0 && !whole && !(1e-4..1e7).contains(&a) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Domain::Flag => f.write_str("True or False"),
            Domain::Interval { lo, hi, lo_open, hi_open } => {
                match (lo.is_finite(), hi.is_finite()) {
                    (false, false) => f.write_str("finite"),
                    (true, false) => write!(f, "{} {}", if lo_open { ">" } else { ">=" }, Num(lo)),
                    (false, true) => write!(f, "{} {}", if hi_open { "<" } else { "<=" }, Num(hi)),
                    (true, true) => write!(
                        f,
                        "in {}{}, {}{}",
                        if lo_open { "(" } else { "[" },
                        Num(lo),
                        Num(hi),
                        if hi_open { ")" } else { "]" }
                    ),
                }
            }
            Domain::Options(names) => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                write!(f, "one of ({})", quoted.join(", "))
            }
            Domain::Object(words) => f.write_str(words),
        }
    }
}

/// The docs' domain text: `None or in [1, 1024]`, `non-empty, each > 0`.
impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.or_none {
            f.write_str("None or ")?;
        }
        if self.non_empty {
            f.write_str("non-empty, ")?;
        }
        if self.each {
            f.write_str("each ")?;
        }
        write!(f, "{}", self.domain)?;
        if !self.note.is_empty() {
            write!(f, "; {}", self.note)?;
        }
        Ok(())
    }
}

/// A field type checked against its declared constraint (the generated `validate`).
pub trait Checked {
    fn check_in(&self, name: &str, c: &Constraint) -> Result<()>;
}

impl Checked for f64 {
    fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
        if c.admits(*self) {
            Ok(())
        } else {
            c.refuse(name, Num(*self))
        }
    }
}

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl Checked for $t {
            fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
                // the bounds are far below 2^53: the rounding of a huge count keeps it outside
                if c.admits(*self as f64) { Ok(()) } else { c.refuse(name, self) }
            }
        }
    )*};
}
whole!(usize, u64, u32);

impl Checked for bool {
    fn check_in(&self, _: &str, _: &Constraint) -> Result<()> {
        Ok(())
    }
}

impl Checked for String {
    fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
        match c.domain {
            Domain::Options(names) if !names.contains(&self.as_str()) => {
                c.refuse(name, format!("{self:?}"))
            }
            _ => Ok(()),
        }
    }
}

impl<T: Checked> Checked for Option<T> {
    fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
        match self {
            Some(v) => v.check_in(name, c),
            None if c.or_none => Ok(()),
            None => crate::param_err!("{name} is required: {c}"),
        }
    }
}

impl<T: Checked> Checked for Vec<T> {
    fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
        if c.non_empty && self.is_empty() {
            return c.refuse(name, "none");
        }
        let entry = format!("every entry of {name}");
        self.iter().try_for_each(|v| v.check_in(&entry, c))
    }
}

/// A choice among names (`name()`): its name must be one of the declared options.
macro_rules! named {
    ($($t:ty),*) => {$(
        impl Checked for $t {
            fn check_in(&self, name: &str, c: &Constraint) -> Result<()> {
                self.name().to_string().check_in(name, c)
            }
        }
    )*};
}
crate::params::named_types!(named);

/// Objects their types check when they are made (a kernel, a pair, an array).
macro_rules! by_type {
    ($($t:ty),*) => {$(
        impl Checked for $t {
            fn check_in(&self, _: &str, _: &Constraint) -> Result<()> {
                Ok(())
            }
        }
    )*};
}
by_type!(crate::kernels::Kernel, (f64, f64), crate::learners::nystrom_awv::FixedDictionary);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_says_what_the_check_does() {
        assert_eq!(between(1.0, 1024.0).or_none().to_string(), "None or in [1, 1024]");
        assert_eq!(DISCOUNT.to_string(), "in (0, 1]");
        assert_eq!(above(0.0).non_empty().to_string(), "non-empty, each > 0");
        assert_eq!(SCALE.to_string(), "in [1e-100, 1e100]");
        assert_eq!(one_of(&["cos", "cossin"]).to_string(), "one of ('cos', 'cossin')");
        assert_eq!(WHOLE.note("at most budget").to_string(), ">= 0; at most budget");
    }

    #[test]
    fn the_check_takes_the_bounds_it_says() {
        let c = DISCOUNT;
        assert!(c.admits(1.0) && c.admits(f64::MIN_POSITIVE));
        assert!(!c.admits(0.0) && !c.admits(1.0 + f64::EPSILON) && !c.admits(f64::NAN));
        assert!(!at_least(0.0).admits(f64::INFINITY));
        assert!(5usize.check_in("n", &between(1.0, 5.0)).is_ok());
        let err = 6usize.check_in("n", &between(1.0, 5.0)).unwrap_err().to_string();
        assert_eq!(err, "n must be in [1, 5], got 6");
        assert!(None::<usize>.check_in("b", &WHOLE.or_none()).is_ok());
        assert!(None::<usize>.check_in("b", &WHOLE).is_err());
        assert!(Vec::<f64>::new().check_in("w", &above(0.0).non_empty()).is_err());
        assert!(vec![1.0, -1.0].check_in("w", &above(0.0).each()).is_err());
        assert!("x".to_string().check_in("s", &one_of(&["a"])).is_err());
        let err = 5e-324.check_in("sigma", &SCALE).unwrap_err().to_string();
        assert_eq!(err, "sigma must be in [1e-100, 1e100], got 5e-324");
    }

    #[test]
    fn the_smallest_invertible_width_is_the_first_with_a_finite_inverse() {
        let lo = crate::error::INVERTIBLE_MIN;
        assert!((1.0 / lo).is_finite());
        assert!((1.0 / f64::from_bits(lo.to_bits() - 1)).is_infinite());
    }
}
