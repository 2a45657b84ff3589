//! The one list of learners.
//!
//! [`learners!`](crate::learners!) holds one line per learner; everything that lists
//! learners is generated from it: the Mixture expert enum and its dispatch
//! ([`crate::mixture::AnyLearner`]), the registration of the binding classes and the
//! expert conversion of the bindings, and the table `_core.registry()` that the Python
//! package (CLI, test zoo, fuzzers, bench cases, API reference) reads.
//!
//! A line is `Variant: CoreType, Payload, ParamsType, "PythonName", binding::PyType,
//! task, input domain, expert;` where
//! * `Variant` names the learner in [`crate::mixture::AnyLearner`]; the order of the
//!   lines is the serialised order of that enum (a Mixture's pickled experts): append
//!   new learners at the end, never reorder;
//! * `Payload` is the type the enum holds (`Box<_>` for the containers);
//! * `ParamsType` is the learner's parameter struct (`crate::params!`), whose defaults
//!   and domains the table reports;
//! * `"PythonName"` is the class name in `kernelstream` and in `kernelstream._core`;
//! * `binding::PyType` is the binding class under `crate::python`;
//! * task: `"regression"`, `"classification"` or `"both"` (by the loss);
//! * input domain: `"real"` or `"unit_cube"` (inputs in `[0, 1]^d`);
//! * expert: whether a Mixture takes it as an expert;
//! * optionally `args PATH`: the constructor arguments outside the parameter struct
//!   (`[(ParamSpec, default)]`, given before the struct's keywords: a Mixture's experts
//!   and rule).
//!
//! The state version comes from the learner's own `state_version!` line.

/// Calls `$callback! { line; line; ... }` with the table (see the module docs).
#[macro_export]
#[doc(hidden)]
macro_rules! learners {
    ($callback:ident) => {
        $callback! {
            TaylorAwv: $crate::learners::TaylorAwv, $crate::learners::TaylorAwv,
                $crate::learners::TaylorAwvParams, "TaylorAWV", taylor_awv::PyTaylorAwv,
                "regression", "real", true;
            KernelAwv: $crate::learners::KernelAwv, $crate::learners::KernelAwv,
                $crate::learners::KernelAwvParams, "KernelAWV", kernel_awv::PyKernelAwv,
                "regression", "real", true;
            NystromAwv: $crate::learners::NystromAwv, $crate::learners::NystromAwv,
                $crate::learners::NystromAwvParams, "NystromAWV", nystrom_awv::PyNystromAwv,
                "regression", "real", true;
            RffAwv: $crate::learners::RffAwv, $crate::learners::RffAwv,
                $crate::learners::RffAwvParams, "RFFAWV", rff_awv::PyRffAwv,
                "regression", "real", true;
            MultiKernelAwv: $crate::learners::MultiKernelAwv, $crate::learners::MultiKernelAwv,
                $crate::learners::MultiKernelAwvParams, "MultiKernelAWV",
                multi_kernel_awv::PyMultiKernelAwv, "regression", "real", true;
            Raker: $crate::learners::Raker, $crate::learners::Raker,
                $crate::learners::RakerParams, "Raker", multi_kernel_awv::PyRaker,
                "regression", "real", true;
            OmklGf: $crate::learners::OmklGf, $crate::learners::OmklGf,
                $crate::learners::OmklGfParams, "OMKLGF", multi_kernel_awv::PyOmklGf,
                "regression", "real", true;
            Fogd: $crate::learners::Fogd, $crate::learners::Fogd,
                $crate::learners::FogdParams, "FOGD", fogd::PyFogd,
                "both", "real", true;
            Nogd: $crate::learners::Nogd, $crate::learners::Nogd,
                $crate::learners::NogdParams, "NOGD", fogd::PyNogd,
                "both", "real", true;
            ProsNKons: $crate::learners::ProsNKons, $crate::learners::ProsNKons,
                $crate::learners::ProsNKonsParams, "ProsNKons", pros_n_kons::PyProsNKons,
                "both", "real", true;
            OnlineProjection: $crate::learners::OnlineProjection,
                $crate::learners::OnlineProjection, $crate::learners::OnlineProjectionParams,
                "OnlineProjection", online_projection::PyOnlineProjection,
                "regression", "unit_cube", true;
            AveragedKernelSgd: $crate::learners::AveragedKernelSgd,
                $crate::learners::AveragedKernelSgd, $crate::learners::AveragedKernelSgdParams,
                "AveragedKernelSGD", averaged_sgd::PyAveragedKernelSgd,
                "regression", "unit_cube", true;
            Mixture: $crate::mixture::Mixture, Box<$crate::mixture::Mixture>,
                $crate::mixture::MixtureParams, "Mixture", mixture::PyMixture,
                "regression", "real", true, args $crate::mixture::MIXTURE_ARGS;
            AutoKernel: $crate::mixture::AutoKernel, Box<$crate::mixture::AutoKernel>,
                $crate::mixture::AutoKernelParams, "AutoKernel", mixture::PyAutoKernel,
                "regression", "real", true;
        }
    };
}
