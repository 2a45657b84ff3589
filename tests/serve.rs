//! The serving path (`predict_one` now, `learn_one` when the label arrives):
//! `predict_keep` keeps the prediction's work for the following round on the
//! same input. Every result, bit for bit, must be that of the pure `predict`
//! followed by a full round, whatever comes between the two calls: another
//! input, a copy, a serialisation round trip, a batch, a second prediction.

// Round i reads row i of x and y[i]: an index loop says it plainest.
#![allow(clippy::needless_range_loop)]

mod common;

use common::{bits, data};
use kernelstream::aggregation::{AnyAggregator, Boa, RuleParams, VawMeta};
use kernelstream::features::RffVariant;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    MultiKernelAwv, NystromAwv, OnlineLearner, RffAwv, RffAwvParams, TaylorAwv, TaylorAwvParams,
};
use kernelstream::mixture::{AnyLearner, AutoKernel, AutoKernelParams, ExpertFeatures, Mixture};
use kernelstream::samplers::KorsWeights;
use kernelstream::stream;
use serde::{de::DeserializeOwned, Serialize};

fn bytes<L: Serialize>(l: &L) -> Vec<u8> {
    bincode::serialize(l).unwrap()
}

/// Plays the same rounds on a learner served with pure predictions (today's
/// `predict_one` then `learn_one`) and on one served with `predict_keep`, with
/// every kind of interruption between a kept prediction and its label; the
/// predictions (of both calls) and the serialised states must be identical.
fn same_as_pure<L>(make: impl Fn() -> L, n: usize, d: usize)
where
    L: OnlineLearner + Clone + Serialize + DeserializeOwned,
{
    let (x, y) = data(n, d, 11);
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let (mut pure, mut kept) = (make(), make());
    let (mut p_pure, mut p_kept) = (Vec::new(), Vec::new());
    for i in 0..n {
        let other = row((i * 7 + 3) % n);
        match i % 8 {
            // Not the input of the round: nothing kept may be used.
            1 => {
                p_pure.push(stream::predict_one(&pure, other).unwrap());
                p_kept.push(stream::predict_one_keep(&mut kept, other).unwrap());
            }
            // A copy, or a state round trip, between the prediction and the label.
            2 | 3 => {
                p_pure.push(stream::predict_one(&pure, row(i)).unwrap());
                p_kept.push(stream::predict_one_keep(&mut kept, row(i)).unwrap());
                if i % 8 == 2 {
                    kept = kept.clone();
                } else {
                    // Both: a state holds a factor brought up to date, and NystromAWV's
                    // served rows pending in a block are rounded otherwise (equal
                    // up to rounding: src/learners/nystrom_awv/serve.rs's tests).
                    kept = bincode::deserialize(&bytes(&kept)).unwrap();
                    pure = bincode::deserialize(&bytes(&pure)).unwrap();
                }
            }
            // A batch round in between: the kept prediction is stale.
            4 => {
                p_pure.push(stream::predict_one(&pure, row(i)).unwrap());
                p_kept.push(stream::predict_one_keep(&mut kept, row(i)).unwrap());
                let (xo, yo) = (other, [y[i] * 0.5]);
                p_pure.extend(stream::progressive_predict(&mut pure, xo, 1, d, &yo).unwrap());
                p_kept.extend(stream::progressive_predict(&mut kept, xo, 1, d, &yo).unwrap());
            }
            // Two predictions, the second on the round's input.
            5 => {
                for q in [other, row(i)] {
                    p_pure.push(stream::predict_one(&pure, q).unwrap());
                    p_kept.push(stream::predict_one_keep(&mut kept, q).unwrap());
                }
            }
            // A learn without a prediction: whatever was kept earlier is stale.
            6 => {}
            // The serving path proper.
            _ => {
                p_pure.push(stream::predict_one(&pure, row(i)).unwrap());
                p_kept.push(stream::predict_one_keep(&mut kept, row(i)).unwrap());
            }
        }
        // The full round reports its prediction: the same as the kept one.
        p_pure.push(pure.predict_learn(row(i), y[i]).unwrap());
        p_kept.push(kept.predict_learn(row(i), y[i]).unwrap());
        assert_eq!(bits(&p_pure), bits(&p_kept), "round {i}");
    }
    assert_eq!(bytes(&pure), bytes(&kept), "states differ after {n} rounds");
    // The learn_one path (stream::learn_one) after a kept prediction, too.
    for i in 0..n.min(20) {
        let a = stream::predict_one(&pure, row(i)).unwrap();
        let b = stream::predict_one_keep(&mut kept, row(i)).unwrap();
        assert_eq!(a.to_bits(), b.to_bits());
        stream::learn_one(&mut pure, row(i), y[i]).unwrap();
        stream::learn_one(&mut kept, row(i), y[i]).unwrap();
    }
    assert_eq!(bytes(&pure), bytes(&kept));
}

#[test]
fn taylor_awv_kept_rounds_equal_pure_ones() {
    same_as_pure(|| common::taylor(0.8, 3, 0.5, false), 120, 4);
    same_as_pure(|| common::taylor(1.2, 2, 0.1, true), 60, 3);
}

#[test]
fn rff_awv_kept_rounds_equal_pure_ones() {
    let k = Kernel::Gaussian { sigma: 0.7 };
    same_as_pure(|| common::rff(k, 30, RffVariant::CosSin), 100, 3);
}

#[test]
fn discounted_feature_awv_kept_rounds_equal_pure_ones() {
    let taylor =
        TaylorAwvParams { sigma: 0.8, degree: 3, lam: 0.5, gamma: 0.95, ..Default::default() };
    same_as_pure(|| TaylorAwv::new(&taylor).unwrap(), 120, 4);
    let rff = RffAwvParams {
        kernel: Some(Kernel::Gaussian { sigma: 0.7 }),
        n_features: 30,
        gamma: 0.9,
        seed: 3,
        ..Default::default()
    };
    same_as_pure(|| RffAwv::new(&rff).unwrap(), 100, 3);
}

#[test]
fn kernel_awv_kept_rounds_equal_pure_ones() {
    let k = Kernel::Laplacian { sigma: 1.0 };
    same_as_pure(|| common::kernel_awv(k, 0.5, false), 90, 3);
}

#[test]
fn nystrom_awv_kept_rounds_equal_pure_ones() {
    let k = Kernel::Gaussian { sigma: 0.6 };
    for w in [KorsWeights::Sqrt, KorsWeights::Inverse] {
        same_as_pure(
            || {
                NystromAwv::new(&kernelstream::learners::NystromAwvParams {
                    kernel: Some(k),
                    lam: 0.5,
                    mu: 0.05,
                    eps: 0.5,
                    beta: 1.0,
                    kors_weights: w,
                    seed: 9,
                    ridge: false,
                    ..Default::default()
                })
                .unwrap()
            },
            120,
            3,
        );
    }
    let (dict, _) = data(30, 3, 5);
    same_as_pure(|| NystromAwv::with_dictionary(k, 0.3, &dict, 3, false).unwrap(), 90, 3);
}

#[test]
fn multi_kernel_awv_kept_rounds_equal_pure_ones() {
    let ks = vec![Kernel::Gaussian { sigma: 0.5 }, Kernel::Laplacian { sigma: 1.0 }];
    for (rule, clip) in [("vaw", None), ("aa", Some((-2.0, 2.0)))] {
        let make = || {
            MultiKernelAwv::new(
                &kernelstream::learners::MultiKernelAwvParams {
                    kernels: ks.clone(),
                    n_features: 16,
                    lam: 1.0,
                    features: RffVariant::CosSin,
                    ridge: false,
                    clip,
                    seed: 5,
                    ..Default::default()
                }
                .with_rule(rule, RuleParams::default()),
            )
            .unwrap()
        };
        same_as_pure(make, 90, 3);
    }
}

#[test]
fn mixture_kept_rounds_equal_pure_ones() {
    let make = || {
        let (dict, _) = data(20, 3, 5);
        let experts = vec![
            AnyLearner::TaylorAwv(common::taylor(0.8, 3, 0.5, false)),
            AnyLearner::RffAwv(common::rff(Kernel::Gaussian { sigma: 0.5 }, 20, RffVariant::Cos)),
            AnyLearner::KernelAwv(common::kernel_awv(Kernel::Laplacian { sigma: 1.0 }, 1.0, true)),
            AnyLearner::NystromAwv(
                NystromAwv::with_dictionary(Kernel::Gaussian { sigma: 0.6 }, 0.3, &dict, 3, false)
                    .unwrap(),
            ),
        ];
        Mixture::new(experts, AnyAggregator::Boa(Boa::new(4, true).unwrap())).unwrap()
    };
    same_as_pure(make, 90, 3);
    let make_vaw = || {
        let experts = vec![
            AnyLearner::TaylorAwv(common::taylor(0.8, 2, 0.5, false)),
            AnyLearner::TaylorAwv(common::taylor(0.4, 3, 0.5, false)),
        ];
        Mixture::new(experts, AnyAggregator::Vaw(VawMeta::new(2, 1.0, false).unwrap())).unwrap()
    };
    same_as_pure(make_vaw, 60, 3);
}

#[test]
fn autokernel_kept_rounds_equal_pure_ones() {
    for features in [ExpertFeatures::Auto, ExpertFeatures::Rff] {
        let cfg = AutoKernelParams {
            warmup: 30,
            widths: vec![0.5, 1.0, 2.0],
            lams: vec![0.1, 1.0],
            nystrom_widths: vec![0.5, 1.0],
            nystrom_lams: vec![0.1],
            features,
            n_features: 20,
            max_taylor_features: 100,
            rule: "boa".into(),
            seed: 7,
            threads: 1,
            discounts: vec![],
            discount_widths: vec![],
            discount_lams: vec![],
            linear: false,
            share: Some(0.0),
            loss_window: Some(0),
            restarts: false,
            fogd_widths: vec![],
            laplace_widths: vec![],
            ..AutoKernelParams::default()
        };
        same_as_pure(|| AutoKernel::with_config(cfg.clone()).unwrap(), 110, 3);
    }
    // The default grid's kinds of experts: four dictionary experts, discounted
    // feature experts, linear ones, a constant-step one, two Laplacian dictionary
    // experts, and the change detector.
    let cfg = AutoKernelParams {
        warmup: 30,
        widths: vec![0.5, 2.0],
        lams: vec![0.1],
        nystrom_widths: vec![0.5, 1.0],
        nystrom_lams: vec![0.01, 0.1],
        features: ExpertFeatures::Rff,
        n_features: 20,
        max_taylor_features: 100,
        rule: "boa".into(),
        seed: 7,
        threads: 1,
        discounts: vec![0.99, 0.9],
        discount_widths: vec![1.0],
        discount_lams: vec![0.1],
        linear: true,
        share: Some(0.0),
        loss_window: Some(0),
        restarts: true,
        fogd_widths: vec![2.0],
        laplace_widths: vec![1.0, 2.0],
        ..AutoKernelParams::default()
    };
    same_as_pure(|| AutoKernel::with_config(cfg.clone()).unwrap(), 110, 3);
}
