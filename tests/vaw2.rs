//! VAW2 paper (Rokhlin & Gurtovaya 2025): identities of the RFF-VAW experts, the
//! aggregation rules and MultiKernelAWV (VAW of eqs. (9)-(10), regret bound (11)-(12),
//! Theorems 2-3).
use kernelstream::aggregation::{
    progressive_predict, AggregatingAlgorithm, Aggregator, AnyAggregator, Boa, Ewa, MlPoly, MlProd,
    RuleParams, VawMeta,
};
use kernelstream::awv::LinearAwv;
use kernelstream::features::{FeatureMap, RandomFourier, RffVariant};
use kernelstream::kernels::Kernel;
use kernelstream::learners::{MultiKernelAwv, OnlineLearner, RffAwv};
use kernelstream::rng::Rng;
use nalgebra::{DMatrix, DVector, SymmetricEigen};

#[test]
fn vaw_worked_example_m1() {
    // Eq. (9) by hand: m = 1, lam = 1, phi = 1, y_1 = 1: y_hat_1 = 0, y_hat_2 = 1 / (1 + 2) = 1/3
    // (ridge would give 1/2).
    let mut e = LinearAwv::new(1, 1.0, false).unwrap();
    assert_eq!(e.predict_learn(&[1.0], 1.0), 0.0);
    assert!((e.predict(&[1.0]) - 1.0 / 3.0).abs() < 1e-15);
    let mut meta = VawMeta::new(1, 1.0, false).unwrap();
    assert_eq!(meta.predict_update(&[1.0], 1.0), 0.0);
    assert!((meta.predict(&[1.0]) - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn rffawv_first_prediction_is_zero_and_features_bounded() {
    let mut l = RffAwv::new(&kernelstream::learners::RffAwvParams {
        kernel: Some(Kernel::Laplacian { sigma: 0.1 }),
        n_features: 30,
        lam: 1.0,
        features: RffVariant::Cos,
        ridge: false,
        seed: 3,
        ..Default::default()
    })
    .unwrap();
    let x = [0.2, -0.4, 0.1];
    assert_eq!(l.predict(&x).unwrap(), 0.0);
    assert_eq!(l.predict_learn(&x, 0.7).unwrap(), 0.0);
    let f = l.feature_map().unwrap();
    let v = f.map(&[0.5, 0.5, -0.3]);
    assert_eq!(v.len(), 30);
    // ||Phi(x)||^2 <= 2m (sec. 2: |sqrt(2) cos| <= sqrt(2); rho^2 = 2m in eq. (12)).
    assert!(v.iter().map(|a| a * a).sum::<f64>() <= 60.0 + 1e-12);
}

/// Deterministic VAW regret bound (eqs. (11)-(12), from Cesa-Bianchi & Lugosi 2006, Theorem 11.8)
/// on random bounded streams:
/// 1/2 sum (y_hat - y)^2 - min_u [1/2 sum (u.phi - y)^2 + lam/2 |u|^2]
///   <= (Y^2/2) sum_i ln(1 + mu_i/lam) <= (m Y^2 / 2) ln(1 + 2T/lam).
#[test]
fn vaw_regret_bound_on_random_streams() {
    for (seed, kernel, lam) in [
        (1u64, Kernel::Gaussian { sigma: 0.5 }, 1.0),
        (2, Kernel::Laplacian { sigma: 1.0 }, 0.3),
        (3, Kernel::Gaussian { sigma: 3.0 }, 2.0),
    ] {
        let (m, t_len, d) = (12usize, 600usize, 2usize);
        let mut rng = Rng::new(100 + seed);
        let xs: Vec<Vec<f64>> =
            (0..t_len).map(|_| (0..d).map(|_| 2.0 * rng.uniform() - 1.0).collect()).collect();
        // Bounded labels |y| <= Y = 1, adversarial-looking: a sign pattern plus noise.
        let ys: Vec<f64> = xs
            .iter()
            .enumerate()
            .map(|(t, x)| (if t % 7 < 3 { 1.0 } else { -1.0 }) * (0.5 + 0.5 * x[0].abs()))
            .collect();
        let mut l = RffAwv::new(&kernelstream::learners::RffAwvParams {
            kernel: Some(kernel),
            n_features: m,
            lam,
            features: RffVariant::Cos,
            ridge: false,
            seed,
            ..Default::default()
        })
        .unwrap();
        let mut loss = 0.0;
        for (x, &y) in xs.iter().zip(&ys) {
            let p = l.predict_learn(x, y).unwrap();
            loss += 0.5 * (p - y).powi(2);
        }
        let f = l.feature_map().unwrap();
        let mut g = DMatrix::<f64>::zeros(m, m);
        let mut b = DVector::<f64>::zeros(m);
        let mut yy = 0.0;
        for (x, &y) in xs.iter().zip(&ys) {
            let v = DVector::from_vec(f.map(x));
            g += &v * v.transpose();
            b += &v * y;
            yy += y * y;
        }
        // min_u 1/2 |Phi u - y|^2 + lam/2 |u|^2 = 1/2 (y.y - b^T (G + lam I)^{-1} b).
        let a = &g + DMatrix::<f64>::identity(m, m) * lam;
        let sol = a.clone().cholesky().unwrap().solve(&b);
        let best = 0.5 * (yy - b.dot(&sol));
        let regret = loss - best;
        let mu = SymmetricEigen::new(g).eigenvalues;
        let eig_bound: f64 = 0.5 * mu.iter().map(|u| (1.0 + u.max(0.0) / lam).ln()).sum::<f64>();
        let paper_bound = 0.5 * m as f64 * (1.0 + 2.0 * t_len as f64 / lam).ln();
        assert!(regret <= eig_bound + 1e-9, "regret {regret} > eigen bound {eig_bound}");
        assert!(eig_bound <= paper_bound + 1e-9);
    }
}

fn all_rules(n: usize) -> Vec<AnyAggregator> {
    vec![
        AnyAggregator::Vaw(VawMeta::new(n, 1.0, false).unwrap()),
        AnyAggregator::Ewa(Ewa::new(n, 0.5).unwrap()),
        AnyAggregator::Aa(AggregatingAlgorithm::new(n, 0.0, 1.0).unwrap()),
        AnyAggregator::Boa(Boa::new(n, true).unwrap()),
        AnyAggregator::Boa(Boa::new(n, false).unwrap()),
        AnyAggregator::MlPoly(MlPoly::new(n, true).unwrap()),
        AnyAggregator::MlPoly(MlPoly::new(n, false).unwrap()),
        AnyAggregator::MlProd(MlProd::new(n, true).unwrap()),
        AnyAggregator::MlProd(MlProd::new(n, false).unwrap()),
    ]
}

#[test]
fn convex_rules_reproduce_equal_experts_and_stay_on_the_simplex() {
    let n = 7;
    let mut rng = Rng::new(9);
    for mut agg in all_rules(n) {
        let convex = !matches!(agg, AnyAggregator::Vaw(_));
        for t in 0..400 {
            let z: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
            let y = rng.uniform();
            if convex {
                let c = 0.1 + 0.8 * rng.uniform();
                let p = agg.predict(&vec![c; n]);
                assert!((p - c).abs() < 1e-12, "{agg:?} t={t}: equal experts {c} gave {p}");
                let w = agg.weights();
                assert!(w.iter().all(|v| *v >= 0.0));
                assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            }
            agg.predict_update(&z, y);
        }
    }
}

#[test]
fn ewa_uses_past_losses_only() {
    // Round 1: uniform weights whatever the label; round 2 weights from round 1's losses.
    let mut e = Ewa::new(2, 0.5).unwrap();
    assert_eq!(e.predict_update(&[0.0, 1.0], 1.0), 0.5);
    let w = e.weights();
    let expect = 1.0 / (1.0 + (0.5f64).exp()); // exp(-0.5*1) / (exp(-0.5) + 1)
    assert!((w[0] - expect).abs() < 1e-15);
}

#[test]
fn log_domain_weights_survive_extreme_losses() {
    let n = 5;
    let mut rng = Rng::new(1);
    let mut aggs = [
        AnyAggregator::Ewa(Ewa::new(n, 0.5).unwrap()),
        AnyAggregator::Boa(Boa::new(n, true).unwrap()),
        AnyAggregator::MlPoly(MlPoly::new(n, true).unwrap()),
        AnyAggregator::MlProd(MlProd::new(n, true).unwrap()),
    ];
    for agg in aggs.iter_mut() {
        for _ in 0..20_000 {
            let z: Vec<f64> = (0..n).map(|j| (j as f64) * 1e6 * rng.uniform()).collect();
            let p = agg.predict_update(&z, 0.0);
            assert!(p.is_finite());
        }
        let w = agg.weights();
        assert!(w.iter().all(|v| v.is_finite() && *v >= 0.0), "{w:?}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn progressive_predict_validates_before_touching_state() {
    let mut e = Ewa::new(3, 0.5).unwrap();
    assert!(progressive_predict(&mut e, &[0.1, 0.2], 1, 2, &[0.0]).is_err());
    assert!(progressive_predict(&mut e, &[0.1, 0.2, 0.3, 0.1, f64::NAN, 0.3], 2, 3, &[0.0, 1.0])
        .is_err());
    assert_eq!(e.n_seen(), 0);
    let out = progressive_predict(&mut e, &[0.1, 0.2, 0.3], 1, 3, &[0.0]).unwrap();
    assert_eq!(out.len(), 1);
}

#[test]
fn multi_kernel_with_one_kernel_and_vaw_meta() {
    // One kernel: the expert is exactly RFFAWV with the same seed (the first draws of the
    // learner's Rng), and the meta VAW on the scalar z gives
    // y_hat = z * (sum_{s<t} y_s z_s) / (lam + sum_{s<=t} z_s^2).
    let k = Kernel::Gaussian { sigma: 0.7 };
    let mut mk = MultiKernelAwv::new(
        &kernelstream::learners::MultiKernelAwvParams {
            kernels: vec![k],
            n_features: 20,
            lam: 1.0,
            features: RffVariant::Cos,
            ridge: false,
            clip: None,
            seed: 5,
            ..Default::default()
        }
        .with_rule("vaw", RuleParams::default()),
    )
    .unwrap();
    let mut single = RffAwv::new(&kernelstream::learners::RffAwvParams {
        kernel: Some(k),
        n_features: 20,
        lam: 1.0,
        features: RffVariant::Cos,
        ridge: false,
        seed: 5,
        ..Default::default()
    })
    .unwrap();
    let mut rng = Rng::new(8);
    let (mut szz, mut syz) = (0.0, 0.0);
    for _ in 0..300 {
        let x = [2.0 * rng.uniform() - 1.0, 2.0 * rng.uniform() - 1.0];
        let y = (3.0 * x[0]).sin();
        let z = single.predict_learn(&x, y).unwrap();
        let expect = z * syz / (1.0 + szz + z * z);
        let got = mk.predict_learn(&x, y).unwrap();
        assert!((got - expect).abs() < 1e-10 * (1.0 + expect.abs()), "{got} vs {expect}");
        szz += z * z;
        syz += y * z;
    }
    let w = mk.weights().unwrap();
    assert!((w[0] - syz / (1.0 + szz)).abs() < 1e-10);
}

#[test]
fn ridge_worked_example_m1() {
    // m = 1, lam = 1, phi = 1, y_1 = 1: ridge (current point left out of the
    // matrix) gives y_hat_2 = 1 / (1 + 1) = 1/2 where VAW gives 1/3.
    let mut meta = VawMeta::new(1, 1.0, true).unwrap();
    assert_eq!(meta.predict_update(&[1.0], 1.0), 0.0);
    assert!((meta.predict(&[1.0]) - 0.5).abs() < 1e-15);
    assert!(meta.ridge());
}

#[test]
fn multi_kernel_with_one_kernel_and_ridge_at_both_levels() {
    // One kernel, ridge at both levels: the expert is RFFAWV(ridge) with the same seed, and
    // the meta ridge on the scalar z gives y_hat = z * (sum_{s<t} y_s z_s) / (lam + sum_{s<t} z_s^2).
    // The expert itself is checked against a direct solve of
    // phi_t^T (lam I + sum_{s<t} phi_s phi_s^T)^{-1} sum_{s<t} y_s phi_s.
    let k = Kernel::Laplacian { sigma: 0.9 };
    let (m, lam) = (15usize, 0.5);
    let mut mk = MultiKernelAwv::new(
        &kernelstream::learners::MultiKernelAwvParams {
            kernels: vec![k],
            n_features: m,
            lam,
            features: RffVariant::CosSin,
            ridge: true,
            clip: None,
            seed: 6,
            ..Default::default()
        }
        .with_rule("vaw", RuleParams { ridge: true, ..RuleParams::default() }),
    )
    .unwrap();
    let mut single = RffAwv::new(&kernelstream::learners::RffAwvParams {
        kernel: Some(k),
        n_features: m,
        lam,
        features: RffVariant::CosSin,
        ridge: true,
        seed: 6,
        ..Default::default()
    })
    .unwrap();
    let mut rng = Rng::new(10);
    let r = 2 * m;
    let (mut g, mut b) = (DMatrix::<f64>::zeros(r, r), DVector::<f64>::zeros(r));
    let (mut szz, mut syz) = (0.0, 0.0);
    for t in 0..200 {
        let x = [2.0 * rng.uniform() - 1.0, 2.0 * rng.uniform() - 1.0];
        let y = (3.0 * x[0]).sin() + 0.1 * x[1];
        let z = single.predict_learn(&x, y).unwrap();
        let v = DVector::from_vec(single.feature_map().unwrap().map(&x));
        let a = &g + DMatrix::<f64>::identity(r, r) * lam;
        let direct = v.dot(&a.cholesky().unwrap().solve(&b));
        assert!((z - direct).abs() < 1e-10 * (1.0 + direct.abs()), "t={t}: {z} vs {direct}");
        let expect = z * syz / (lam + szz);
        let got = mk.predict_learn(&x, y).unwrap();
        assert!((got - expect).abs() < 1e-10 * (1.0 + expect.abs()), "{got} vs {expect}");
        g += &v * v.transpose();
        b += &v * y;
        szz += z * z;
        syz += y * z;
    }
}

#[test]
fn meta_ridge_needs_the_vaw_rule() {
    let ks = vec![Kernel::Gaussian { sigma: 1.0 }];
    let p = RuleParams { ridge: true, ..RuleParams::default() };
    let clip = Some((0.0, 1.0));
    let make = |rule| {
        MultiKernelAwv::new(
            &kernelstream::learners::MultiKernelAwvParams {
                kernels: ks.clone(),
                n_features: 4,
                lam: 1.0,
                features: RffVariant::Cos,
                ridge: false,
                clip,
                seed: 0,
                ..Default::default()
            }
            .with_rule(rule, p),
        )
    };
    assert!(make("ewa").is_err());
    match make("vaw").unwrap().meta_rule() {
        AnyAggregator::Vaw(m) => assert!(m.ridge()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rff_draw_order_is_documented_one() {
    // Frequencies per feature (d values), then the phase; replay with the same Rng.
    let mut rng = Rng::new(42);
    let f = RandomFourier::draw(&Kernel::Laplacian { sigma: 2.0 }, 3, 4, RffVariant::Cos, &mut rng)
        .unwrap();
    let mut r2 = Rng::new(42);
    for k in 0..4 {
        for i in 0..3 {
            assert_eq!(f.omega()[k * 3 + i], r2.cauchy() / 2.0);
        }
        assert_eq!(f.offset()[k], 2.0 * std::f64::consts::PI * r2.uniform());
    }
}
