//! [`AnyLearner`]: every core learner behind one enum, so that a [`super::Mixture`]
//! holds experts of mixed classes, dispatches to them without a Python loop and
//! serialises them with serde (a `Box<dyn OnlineLearner>` could not be).

use crate::error::Result;
use crate::learners::{LinearAwvLearner, OnlineLearner, Rows};
use crate::multi::MultiOutput;
use crate::state::ValidState;
use serde::{Deserialize, Serialize};
use std::borrow::{Borrow, BorrowMut};

/// Generates [`AnyLearner`] and its dispatch from the table of [`crate::learners!`]:
/// one variant per learner marked as a Mixture expert, in table order (the serialised
/// order), then `Linear`.
macro_rules! any_learner {
    ($($v:ident {
        core: $ty:ty, held: $pay:ty, params: $params:ty, python: $name:literal in $module:literal,
        task: $task:literal, inputs: $domain:literal, expert: $expert:tt, multi_output: $multi:tt,
        args: $args:ident,
    };)*) => {
        any_learner!(@experts [] $($expert $v $ty, $pay, $multi, $name;)*);
    };
    (@experts [$($done:tt)*] true $v:ident $ty:ty, $pay:ty, $multi:tt, $name:literal; $($rest:tt)*) => {
        any_learner!(@experts [$($done)* ($v $ty, $pay, $multi, $name)] $($rest)*);
    };
    (@experts [$($done:tt)*] false $v:ident $ty:ty, $pay:ty, $multi:tt, $name:literal; $($rest:tt)*) => {
        any_learner!(@experts [$($done)*] $($rest)*);
    };
    (@experts [$(($v:ident $ty:ty, $pay:ty, $multi:tt, $name:literal))*]) => {
        /// One expert of a mixture: any learner of the crate (mixtures nest).
        #[derive(Clone, Debug, Serialize, Deserialize)]
        pub enum AnyLearner {
            $($v($pay),)*
            /// AutoKernel's linear experts (no Python class of their own).
            Linear(LinearAwvLearner),
        }

        impl OnlineLearner for AnyLearner {
            fn input_dim(&self) -> Option<usize> {
                each!(self, [$($v)*], l => l.input_dim())
            }
            fn check_row(&self, x: &[f64], y: Option<f64>) -> Result<()> {
                each!(self, [$($v)*], l => l.check_row(x, y))
            }
            fn check_capacity(&self, n_new: usize, d: usize) -> Result<()> {
                each!(self, [$($v)*], l => l.check_capacity(n_new, d))
            }
            fn check_input_dim(&self, d: usize) -> Result<()> {
                each!(self, [$($v)*], l => l.check_input_dim(d))
            }
            fn predict(&self, x: &[f64]) -> Result<f64> {
                each!(self, [$($v)*], l => l.predict(x))
            }
            fn predict_keep(&mut self, x: &[f64]) -> Result<f64> {
                each!(self, [$($v)*], l => l.predict_keep(x))
            }
            fn predict_std(&self, x: &[f64]) -> Result<Option<(f64, f64)>> {
                each!(self, [$($v)*], l => l.predict_std(x))
            }
            fn noise_std(&self) -> Option<f64> {
                each!(self, [$($v)*], l => l.noise_std())
            }
            fn widen_inputs(&mut self, d: usize) -> Result<()> {
                each!(self, [$($v)*], l => l.widen_inputs(d))
            }
            fn learn(&mut self, x: &[f64], y: f64) -> Result<()> {
                each!(self, [$($v)*], l => l.learn(x, y))
            }
            fn predict_learn(&mut self, x: &[f64], y: f64) -> Result<f64> {
                each!(self, [$($v)*], l => l.predict_learn(x, y))
            }
            fn predict_learn_weighted(&mut self, x: &[f64], y: f64, w: f64) -> Result<f64> {
                each!(self, [$($v)*], l => l.predict_learn_weighted(x, y, w))
            }
            fn supports_weights(&self) -> bool {
                each!(self, [$($v)*], l => l.supports_weights())
            }
            fn run_rows(&mut self, rows: Rows<'_>, out: Option<&mut Vec<f64>>) -> Result<()> {
                each!(self, [$($v)*], l => l.run_rows(rows, out))
            }
            fn n_seen(&self) -> u64 {
                each!(self, [$($v)*], l => l.n_seen())
            }
            fn dim(&self) -> usize {
                each!(self, [$($v)*], l => l.dim())
            }
            fn memory_doubles(&self, d: usize) -> Option<u128> {
                each!(self, [$($v)*], l => l.memory_doubles(d))
            }
        }

        impl AnyLearner {
            /// The expert as a learner of several outputs ([`MultiOutput`]) if its line of
            /// the table says `multi_output: true` (and the linear experts), else `None`:
            /// an exhaustive match, generated (`crate::mixture::outputs` dispatches on it).
            pub(crate) fn as_multi(&self) -> Option<&dyn MultiOutput> {
                match self {
                    $(AnyLearner::$v(l) => multi!($multi, <$pay as Borrow<$ty>>::borrow(l)),)*
                    AnyLearner::Linear(l) => Some(l),
                }
            }

            /// The Python names of the experts [`Self::as_multi`] takes (the table's
            /// `multi_output` column), in table order.
            pub(crate) fn multi_output_names() -> Vec<&'static str> {
                let mut names = Vec::new();
                $( if $multi { names.push($name); } )*
                names
            }

            /// [`Self::as_multi`], mutable.
            pub(crate) fn as_multi_mut(&mut self) -> Option<&mut dyn MultiOutput> {
                match self {
                    $(AnyLearner::$v(l) => multi!($multi, <$pay as BorrowMut<$ty>>::borrow_mut(l)),)*
                    AnyLearner::Linear(l) => Some(l),
                }
            }
        }

        impl ValidState for AnyLearner {
            fn validate(&self) -> Result<()> {
                each!(self, [$($v)*], l => l.validate())
            }
            fn check_config(&self, fresh: &Self) -> Result<()> {
                match (self, fresh) {
                    $((AnyLearner::$v(a), AnyLearner::$v(b)) => a.check_config(b),)*
                    (AnyLearner::Linear(a), AnyLearner::Linear(b)) => a.check_config(b),
                    _ => Err(crate::KsError::Input(
                        "invalid learner state: an expert of another class than its parameters say"
                            .into(),
                    )),
                }
            }
        }
    };
}

/// The learner `$l` as a `dyn MultiOutput` if its table line says `multi_output: true`.
macro_rules! multi {
    (true, $l:expr) => {
        Some($l)
    };
    (false, $l:expr) => {{
        let _ = $l;
        None
    }};
}

/// `$e` on the learner inside any variant (bound to `$l`).
macro_rules! each {
    ($self:expr, [$($v:ident)*], $l:ident => $e:expr) => {
        match $self {
            $(AnyLearner::$v($l) => $e,)*
            AnyLearner::Linear($l) => $e,
        }
    };
}

crate::learners!(any_learner);

#[cfg(test)]
mod tests {
    use crate::aggregation::{AggregatingAlgorithm, Boa, Ewa, MlPoly, MlProd, VawMeta};
    use crate::mixture::{AutoKernel, Mixture};
    use crate::state::StateVersion;

    /// The state versions of the table's learners, in table order.
    macro_rules! versions {
        ($($v:ident { core: $ty:ty, $($row:tt)* };)*) => {
            [$(<$ty as StateVersion>::STATE_VERSION),*]
        };
    }

    /// A Mixture's and an AutoKernel's states hold their experts' and rules' states (and
    /// a MultiKernelAwv's its rule's): when one of the versions below moves, bump those of
    /// the containers too, then update this table. The learners are pinned by their
    /// position in the table (which only grows at the end); one appended later gets its
    /// own committed state fixture, which the containers' do not depend on.
    #[test]
    fn state_versions_are_pinned() {
        let table = crate::learners!(versions);
        let rules = [
            VawMeta::STATE_VERSION,
            Ewa::STATE_VERSION,
            AggregatingAlgorithm::STATE_VERSION,
            Boa::STATE_VERSION,
            MlPoly::STATE_VERSION,
            MlProd::STATE_VERSION,
        ];
        // The AWV family (the first five lines) keeps its noise level (the predictive
        // std), VAWMeta's engine too, FOGD (line 8) its residuals' level and K outputs;
        // the last two lines are the containers.
        assert_eq!(table[..14], [5, 5, 8, 5, 6, 4, 4, 5, 4, 4, 4, 4, 12, 16]);
        assert_eq!(rules, [5, 4, 4, 4, 4, 4]);
        assert_eq!((Mixture::STATE_VERSION, AutoKernel::STATE_VERSION), (12, 16));
    }
}
