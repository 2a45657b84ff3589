//! Online learners, and the one list of them.
//!
//! Every learner implements [`OnlineLearner`], the Rust side of the learner protocol of
//! the API contract; [`crate::stream`] runs the online protocol over whole arrays for any
//! of them.
//!
//! # The learner table
//!
//! A learner is declared in this file only: its module and exports (below, one block per
//! learner) and its line in [`learners!`](crate::learners!) (further down). Everything
//! that lists learners is generated from that table: the Mixture expert enum and its
//! dispatch ([`crate::mixture::AnyLearner`]), the Python binding class of each learner
//! (its constructor from keyword arguments and the whole protocol:
//! `crate::python::classes`), their registration, the expert conversion of the bindings,
//! and the table `_core.registry()` that the Python package (exports, CLI, test zoo,
//! fuzzers, bench cases, API reference) reads. A learner's parameter struct
//! (`crate::params!`) and state version (`state_version!`) sit in its own file.
//!
//! A line is one row of columns (the header comment names them):
//! `Variant(ParamsType)  "Name" in "module",  "task", "inputs",  expert, multi_output,  held, args;`
//! * `Variant`: the learner type (every name of the table is under `crate::learners`;
//!   Mixture and AutoKernel are re-exported here), with
//!   `pub fn new(&ParamsType) -> Result<Self>`; it also names the learner's variant of
//!   [`crate::mixture::AnyLearner`] and its binding class
//!   (`crate::python::classes::Variant`). The order of the lines is the serialised order
//!   of that enum (a Mixture's pickled experts): append new learners at the end, never
//!   reorder;
//! * `ParamsType`: the parameter struct, whose defaults and domains the table reports;
//! * `"Name" in "module"`: the class name in `kernelstream` and `kernelstream._core`, and
//!   the module of its Python face under `kernelstream.learners`;
//! * `task`: `"regression"`, `"classification"` or `"both"` (by the loss);
//!   `inputs`: `"real"` or `"unit_cube"` (inputs in `[0, 1]^d`);
//! * `expert` (`true`/`false`): whether a Mixture takes it as an expert; `multi_output`
//!   (`true`/`false`): whether it implements [`crate::multi::MultiOutput`] (the binding
//!   then has the multi-output methods, and inside a Mixture it learns several outputs:
//!   [`crate::mixture::AnyLearner`]'s multi-output dispatch is generated from it);
//! * `held`: how [`crate::mixture::AnyLearner`] holds it, [`Inline`] (as it is) or
//!   [`Boxed`] (the containers);
//! * `args`: the constructor arguments outside the parameter struct (`[(ParamSpec,
//!   default)]`, given before the struct's keywords: a Mixture's experts and rule), or
//!   [`NO_ARGS`]. A learner with arguments writes its binding's `#[new]` itself.
//!
//! The callbacks receive each line spelled out, `Variant { core: Type, held: Payload,
//! params: ParamsType, python: "Name" in "module", task: "...", inputs: "...", expert:
//! bool, multi_output: bool, args: NAME, };`, with full paths (`args` stays a name in
//! `crate::learners`).
//!
//! A binding that needs methods beyond the protocol (getters of learned state) adds a
//! `#[pymethods]` block on its generated class in a file of its own under `src/python/`.

// Shared machinery of the learners.
pub(crate) mod batch;
pub mod feature_awv;
pub mod kept;
pub mod linear_awv;
pub mod losses;
mod ogd_experts;
pub(crate) mod online_learner;

pub use batch::Rows;
pub use feature_awv::{FeatureAwv, LazyFeatureMap};
pub use kept::Kept;
pub use linear_awv::LinearAwvLearner;
pub use losses::Loss;
pub use online_learner::{cannot_widen, OnlineLearner};

// The learners, in table order.
pub mod taylor_awv;
pub use taylor_awv::{TaylorAwv, TaylorAwvParams, TaylorParams};

pub mod kernel_awv;
pub use kernel_awv::{KernelAwv, KernelAwvParams};

pub mod nystrom_awv;
pub use nystrom_awv::{
    auto_block_size as nystrom_auto_block_size, FixedDictionary, NystromAwv, NystromAwvParams,
    NystromStats,
};

pub mod rff_awv;
pub use rff_awv::{RffAwv, RffAwvParams, RffParams};

pub mod multi_kernel_awv;
pub use multi_kernel_awv::{MultiKernelAwv, MultiKernelAwvParams};

pub mod raker;
pub use raker::{Raker, RakerParams};

pub mod omkl_gf;
pub use omkl_gf::{OmklGf, OmklGfParams};

pub mod fogd;
pub use fogd::{Fogd, FogdParams};

pub mod nogd;
pub use nogd::{Nogd, NogdParams};

pub mod pros_n_kons;
pub use pros_n_kons::{OnGrowth, ProsNKons, ProsNKonsParams, ResetTiming, Transport};

pub mod online_projection;
pub use online_projection::{OnlineProjection, OnlineProjectionParams, ProjectionConfig};

pub mod averaged_sgd;
pub use averaged_sgd::{AveragedKernelSgd, AveragedKernelSgdParams};

// Mixture and AutoKernel live in `crate::mixture` (here for the table's paths).
pub use crate::mixture::{AutoKernel, AutoKernelParams, Mixture, MixtureParams, MIXTURE_ARGS};

/// The table's `held` column: the expert enum holds a learner as it is...
pub type Inline<T> = T;
/// ... or boxed (the containers, large).
pub type Boxed<T> = Box<T>;
/// The table's `args` column of a learner with no constructor arguments outside its
/// parameter struct.
pub const NO_ARGS: [(crate::params::ParamSpec, Option<&str>); 0] = [];

/// Calls `$callback! { line; line; ... }` with the learner table, each line spelled out
/// (see the module docs).
#[macro_export]
#[doc(hidden)]
macro_rules! learners {
    ($callback:ident) => { $crate::learners! { @next $callback [] [
    //  Rust type (parameters)                      Python class in module                     task          inputs        expert multi_output  held    args
        TaylorAwv(TaylorAwvParams)                  "TaylorAWV" in "taylor_awv",               "regression", "real",       true,  true,         Inline, NO_ARGS;
        KernelAwv(KernelAwvParams)                  "KernelAWV" in "kernel_awv",               "regression", "real",       true,  true,         Inline, NO_ARGS;
        NystromAwv(NystromAwvParams)                "NystromAWV" in "nystrom_awv",             "regression", "real",       true,  true,         Inline, NO_ARGS;
        RffAwv(RffAwvParams)                        "RFFAWV" in "rff_awv",                     "regression", "real",       true,  true,         Inline, NO_ARGS;
        MultiKernelAwv(MultiKernelAwvParams)        "MultiKernelAWV" in "multi_kernel_awv",    "regression", "real",       true,  false,        Inline, NO_ARGS;
        Raker(RakerParams)                          "Raker" in "multi_kernel_awv",             "regression", "real",       true,  false,        Inline, NO_ARGS;
        OmklGf(OmklGfParams)                        "OMKLGF" in "multi_kernel_awv",            "regression", "real",       true,  false,        Inline, NO_ARGS;
        Fogd(FogdParams)                            "FOGD" in "fogd",                          "both",       "real",       true,  true,         Inline, NO_ARGS;
        Nogd(NogdParams)                            "NOGD" in "nogd",                          "both",       "real",       true,  false,        Inline, NO_ARGS;
        ProsNKons(ProsNKonsParams)                  "ProsNKons" in "pros_n_kons",              "both",       "real",       true,  false,        Inline, NO_ARGS;
        OnlineProjection(OnlineProjectionParams)    "OnlineProjection" in "online_projection", "regression", "unit_cube",  true,  false,        Inline, NO_ARGS;
        AveragedKernelSgd(AveragedKernelSgdParams)  "AveragedKernelSGD" in "averaged_sgd",     "regression", "unit_cube",  true,  false,        Inline, NO_ARGS;
        Mixture(MixtureParams)                      "Mixture" in "mixture",                    "regression", "real",       true,  true,         Boxed,  MIXTURE_ARGS;
        AutoKernel(AutoKernelParams)                "AutoKernel" in "autokernel",              "regression", "real",       true,  true,         Boxed,  NO_ARGS;
    ] } };
    // Spells out the next line (names as paths under `$crate::learners`).
    (@next $cb:ident [$($done:tt)*] [
        $v:ident($p:ident) $name:literal in $module:literal, $task:literal, $inputs:literal,
        $expert:tt, $multi:tt, $held:ident, $args:ident; $($rest:tt)*
    ]) => {
        $crate::learners! { @next $cb [$($done)* $v {
            core: $crate::learners::$v, held: $crate::learners::$held<$crate::learners::$v>,
            params: $crate::learners::$p, python: $name in $module, task: $task,
            inputs: $inputs, expert: $expert, multi_output: $multi, args: $args,
        };] [$($rest)*] }
    };
    (@next $cb:ident [$($done:tt)*] []) => {
        $cb! { $($done)* }
    };
}
