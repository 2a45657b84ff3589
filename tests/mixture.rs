//! Mixture and AutoKernel (src/mixture): the mixture is exactly "run every expert,
//! feed its predictions to the rule"; threads change nothing; AutoKernel is
//! equivariant to rescaling inputs and targets.
mod common;

use common::data;
use kernelstream::aggregation::{
    self, AggregatingAlgorithm, AnyAggregator, Boa, Ewa, MlPoly, MlProd, VawMeta,
};
use kernelstream::features::RffVariant;
use kernelstream::kernels::Kernel;
use kernelstream::learners::OnlineLearner;
use kernelstream::mixture::{AnyLearner, AutoKernel, AutoKernelParams, ExpertFeatures, Mixture};
use kernelstream::stream;

fn experts() -> Vec<AnyLearner> {
    vec![
        AnyLearner::TaylorAwv(common::taylor(0.8, 3, 0.5, false)),
        AnyLearner::RffAwv(common::rff(Kernel::Gaussian { sigma: 0.5 }, 20, RffVariant::CosSin)),
        AnyLearner::KernelAwv(common::kernel_awv(Kernel::Laplacian { sigma: 1.0 }, 1.0, true)),
    ]
}

fn rules(n: usize) -> Vec<AnyAggregator> {
    vec![
        AnyAggregator::Vaw(VawMeta::new(n, 1.0, false).unwrap()),
        AnyAggregator::Ewa(Ewa::new(n, 0.7).unwrap()),
        AnyAggregator::Aa(AggregatingAlgorithm::new(n, -1.5, 1.5).unwrap()),
        AnyAggregator::Boa(Boa::new(n, true).unwrap()),
        AnyAggregator::MlPoly(MlPoly::new(n, false).unwrap()),
        AnyAggregator::MlProd(MlProd::new(n, true).unwrap()),
    ]
}

#[test]
fn mixture_equals_rule_on_the_experts_prediction_matrix() {
    let (n, d) = (300, 3);
    let (x, y) = data(n, d, 1);
    // Z: each expert alone.
    let mut cols = Vec::new();
    for mut e in experts() {
        cols.push(stream::progressive_predict(&mut e, &x, n, d, &y).unwrap());
    }
    let k = cols.len();
    let z: Vec<f64> = (0..n).flat_map(|i| cols.iter().map(move |c| c[i])).collect();
    for rule in rules(k) {
        let mut alone = rule.clone();
        let want = aggregation::progressive_predict(&mut alone, &z, n, k, &y).unwrap();
        for threads in [0, 1, 2, 3] {
            let mut mix = Mixture::new(experts(), rule.clone()).unwrap();
            mix.set_threads(threads).unwrap();
            let got = stream::progressive_predict(&mut mix, &x, n, d, &y).unwrap();
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{rule:?}: {a} vs {b}");
            }
            assert_eq!(mix.n_seen(), n as u64);
            let w_alone = aggregation::Aggregator::weights(&alone);
            assert_eq!(mix.weights(), w_alone);
        }
        // Round by round (predict_learn) gives the same as the blocked path.
        let mut mix = Mixture::new(experts(), rule.clone()).unwrap();
        for (i, row) in x.chunks(d).enumerate() {
            let p = mix.predict(row).unwrap();
            let q = mix.predict_learn(row, y[i]).unwrap();
            assert_eq!(p, q);
            assert!((q - want[i]).abs() <= 1e-12 * (1.0 + want[i].abs()));
        }
    }
}

#[test]
fn mixture_rejects_mismatched_rule_and_empty_list() {
    assert!(Mixture::new(vec![], AnyAggregator::Boa(Boa::new(1, true).unwrap())).is_err());
    assert!(Mixture::new(experts(), AnyAggregator::Boa(Boa::new(2, true).unwrap())).is_err());
}

fn cfg(features: ExpertFeatures) -> AutoKernelParams {
    AutoKernelParams {
        warmup: 40,
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
    }
}

#[test]
fn autokernel_is_equivariant_to_scaling() {
    let (n, d) = (400, 3);
    let (x, y) = data(n, d, 2);
    for f in [ExpertFeatures::Taylor, ExpertFeatures::Rff] {
        let base = stream::progressive_predict(
            &mut AutoKernel::with_config(cfg(f)).unwrap(),
            &x,
            n,
            d,
            &y,
        )
        .unwrap();
        let mse_base: f64 = base.iter().zip(&y).map(|(p, t)| (p - t).powi(2)).sum();
        for (cx, cy) in [(1e-3, 1e3), (1e3, 1e-3), (1e3, 1e3)] {
            let xs: Vec<f64> = x.iter().map(|v| v * cx).collect();
            let ys: Vec<f64> = y.iter().map(|v| v * cy).collect();
            let p = stream::progressive_predict(
                &mut AutoKernel::with_config(cfg(f)).unwrap(),
                &xs,
                n,
                d,
                &ys,
            )
            .unwrap();
            // Rescaled back, the predictions agree up to rounding (the warm-up estimates
            // scale exactly with the data, up to floating-point error).
            for (a, b) in p.iter().zip(&base) {
                assert!((a / cy - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
            }
            let mse: f64 = p.iter().zip(&ys).map(|(p, t)| (p / cy - t / cy).powi(2)).sum();
            assert!((mse / mse_base - 1.0).abs() < 1e-6);
        }
    }
}

#[test]
fn autokernel_round_by_round_equals_block_and_learns() {
    let (n, d) = (300, 3);
    let (x, y) = data(n, d, 3);
    // Taylor experts of C(8 + 3, 3) = 165 features: above the smallest order that runs
    // blocks (`auto_block_size`).
    let c = AutoKernelParams { max_taylor_features: 200, ..cfg(ExpertFeatures::Auto) };
    assert!(kernelstream::awv::auto_block_size(165) > 1);
    let mut a = AutoKernel::with_config(c.clone()).unwrap();
    let block = stream::progressive_predict(&mut a, &x, n, d, &y).unwrap();
    let mut b = AutoKernel::with_config(c.clone()).unwrap();
    let loop_: Vec<f64> =
        x.chunks(d).zip(&y).map(|(r, &t)| b.predict_learn(r, t).unwrap()).collect();
    // The Taylor experts run blocks of rounds in the batch: equal to single rounds up
    // to rounding, relative to the labels' scale.
    let ymax = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (p, q) in block.iter().zip(&loop_) {
        assert!((p - q).abs() <= 1e-10 * (ymax + q.abs()), "{p} vs {q}");
    }
    assert!(block != loop_, "the batch ran single rounds");
    let var = y.iter().map(|v| v * v).sum::<f64>() / n as f64;
    let mse = block[150..].iter().zip(&y[150..]).map(|(p, t)| (p - t).powi(2)).sum::<f64>() / 150.0;
    assert!(mse < 0.2 * var, "mse {mse} var {var}");
    // The replayed warm-up predictions of each expert are those of the expert alone
    // on the standardised warm-up rows.
    // 3 x 2 feature experts and 2 x 1 Nystrom experts.
    assert_eq!(a.n_experts(), 8);
    assert_eq!(a.warmup_expert_predictions().unwrap().len(), 40 * 8);
}

#[test]
fn mixture_state_is_validated_as_a_whole() {
    // bincode is positional: these tuples have the fields of a Mixture (experts, rule,
    // the rules of outputs 2..K with their loss scales, the rule as constructed, the
    // input dimension, rounds, threads, loss scale as (window, num, den)).
    let none: Option<(f64, f64, f64)> = None;
    let boa = |n| AnyAggregator::Boa(Boa::new(n, true).unwrap());
    type Extra = Vec<(AnyAggregator, Option<(f64, f64, f64)>)>;
    let no_extra: Extra = Vec::new();
    let state = |rule, extra: Extra, fresh, d: usize, ls| {
        bincode::serialize(&(experts(), rule, extra, fresh, Some(d), 0u64, 1usize, ls)).unwrap()
    };
    // A rule over 2 experts for 3 experts, as the rule, an output's or the fresh one.
    assert!(
        bincode::deserialize::<Mixture>(&state(boa(2), no_extra.clone(), boa(3), 3, none)).is_err()
    );
    let extra2 = vec![(boa(2), none)];
    assert!(bincode::deserialize::<Mixture>(&state(boa(3), extra2, boa(3), 3, none)).is_err());
    assert!(
        bincode::deserialize::<Mixture>(&state(boa(3), no_extra.clone(), boa(2), 3, none)).is_err()
    );
    let m: Mixture =
        bincode::deserialize(&state(boa(3), no_extra.clone(), boa(3), 3, none)).unwrap();
    assert_eq!(m.n_experts(), 3);
    // more rounds than its (fresh) experts have seen
    let ahead = bincode::serialize(&(
        experts(),
        boa(3),
        no_extra.clone(),
        boa(3),
        Some(3usize),
        5u64,
        1usize,
        none,
    ))
    .unwrap();
    assert!(bincode::deserialize::<Mixture>(&ahead).is_err());
    assert!(
        bincode::deserialize::<Mixture>(&state(boa(3), no_extra.clone(), boa(3), 0, none)).is_err()
    );
    // the loss scale: a window of at least one whole round, finite non-negative sums
    let scaled = state(boa(3), no_extra.clone(), boa(3), 3, Some((10.0, 0.5, 2.0)));
    let m: Mixture = bincode::deserialize(&scaled).unwrap();
    assert_eq!(m.loss_window(), Some(10));
    for ls in [(0.0, 0.0, 0.0), (2.5, 0.0, 0.0), (10.0, f64::NAN, 1.0), (10.0, 1.0, -1.0)] {
        let bad = state(boa(3), no_extra.clone(), boa(3), 3, Some(ls));
        assert!(bincode::deserialize::<Mixture>(&bad).is_err());
    }
}

#[test]
fn autokernel_blocked_experts_equal_single_rounds_over_a_long_stream() {
    // Taylor (r = C(8 + 3, 3) = 165) and random-feature (r = 2 x 96) experts run blocks
    // of rounds in the batch (`auto_block_size` > 1); the round loop runs single rounds.
    // Fed in pieces (block boundaries move), 2 x 10^4 rounds agree to 1e-10 relative to
    // the labels' scale.
    assert!(kernelstream::awv::auto_block_size(165) > 1);
    let (n, d) = (20_000usize, 3usize);
    let (x, y) = data(n, d, 9);
    let ymax = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for f in [ExpertFeatures::Taylor, ExpertFeatures::Rff] {
        let c = AutoKernelParams { n_features: 96, max_taylor_features: 200, ..cfg(f) };
        let mut batch = AutoKernel::with_config(c.clone()).unwrap();
        let mut p = Vec::new();
        let mut t = 0;
        for len in [7usize, 993, 6000, 13_000] {
            let (xs, ys) = (&x[t * d..(t + len) * d], &y[t..t + len]);
            p.extend(stream::progressive_predict(&mut batch, xs, len, d, ys).unwrap());
            t += len;
        }
        let mut single = AutoKernel::with_config(c.clone()).unwrap();
        let q: Vec<f64> =
            x.chunks(d).zip(&y).map(|(r, &t)| single.predict_learn(r, t).unwrap()).collect();
        let gap =
            p.iter().zip(&q).map(|(a, b)| (a - b).abs() / (ymax + b.abs())).fold(0.0, f64::max);
        eprintln!("{f:?}: prediction gap {gap:.2e}");
        assert!(gap < 1e-10, "{f:?}: {gap:e}");
        assert!(gap > 0.0, "{f:?}: the batch ran single rounds");
        assert_eq!(batch.n_seen(), n as u64);
    }
}
