//! TaylorAWV in Rust alone (PKAWV paper sec. 3.1, eq. (6), Lemma 11, App. H.1 Algorithm 1).
use kernelstream::features::taylor::{taylor_feature_count, TaylorGaussian};
use kernelstream::features::FeatureMap;
use kernelstream::learners::{OnlineLearner, TaylorAwv};
use kernelstream::rng::Rng;
use kernelstream::stream;
use kernelstream::KsError;

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

#[test]
fn feature_counts_are_binomial_m_plus_d() {
    // r = C(M + d, d); 190 for d = 18, M = 2 is the count the PKAWV paper quotes for SUSY (sec. 4).
    for (d, m, r) in
        [(8, 2, 45), (18, 2, 190), (5, 2, 21), (5, 3, 56), (5, 4, 126), (9, 4, 715), (22, 2, 276)]
    {
        assert_eq!(taylor_feature_count(d, m), Some(r));
        assert_eq!(TaylorGaussian::new(d, m, 1.0).unwrap().dim(), r);
    }
}

#[test]
fn inner_product_is_the_truncated_gaussian_kernel() {
    let mut rng = Rng::new(4);
    for &(d, m, sigma) in &[(3usize, 2usize, 1.0f64), (4, 5, 0.6), (2, 7, 2.0)] {
        let f = TaylorGaussian::new(d, m, sigma).unwrap();
        for _ in 0..50 {
            let x: Vec<f64> = (0..d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
            let z: Vec<f64> = (0..d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
            let lhs: f64 = f.map(&x).iter().zip(f.map(&z)).map(|(a, b)| a * b).sum();
            let xx: f64 = x.iter().map(|v| v * v).sum();
            let zz: f64 = z.iter().map(|v| v * v).sum();
            let xz: f64 = x.iter().zip(&z).map(|(a, b)| a * b).sum::<f64>() / (sigma * sigma);
            let series: f64 = (0..=m).map(|j| xz.powi(j as i32) / factorial(j)).sum();
            let rhs = (-(xx + zz) / (2.0 * sigma * sigma)).exp() * series;
            assert!((lhs - rhs).abs() <= 1e-13 * rhs.abs().max(1e-300) + 1e-16, "{lhs} vs {rhs}");
        }
    }
}

#[test]
fn per_round_state_is_independent_of_t_and_first_prediction_zero() {
    let mut l = TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
        sigma: 1.0,
        degree: 3,
        lam: 1.0,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    let mut rng = Rng::new(8);
    let x: Vec<f64> = (0..4 * 500).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> = (0..500).map(|i| (x[4 * i]).sin()).collect();
    let p = stream::progressive_predict(&mut l, &x, 500, 4, &y).unwrap();
    assert_eq!(p[0], 0.0);
    assert_eq!(l.dim(), 35);
    assert_eq!(l.n_seen(), 500);
}

#[test]
fn invalid_input_is_rejected_before_any_change() {
    let mut l = TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
        sigma: 1.0,
        degree: 2,
        lam: 1.0,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    let x = [0.1, 0.2, f64::NAN, 0.3, 0.4, 0.5];
    assert!(matches!(stream::learn_many(&mut l, &x, 2, 3, &[1.0, 2.0]), Err(KsError::Input(_))));
    assert_eq!(l.n_seen(), 0);
    assert_eq!(l.input_dim(), None);
    stream::learn_one(&mut l, &[0.1, 0.2, 0.3], 1.0).unwrap();
    assert!(matches!(stream::learn_one(&mut l, &[0.1, 0.2], 1.0), Err(KsError::Input(_))));
    assert!(matches!(stream::predict_one(&l, &[0.1, 0.2, 0.3, 0.4]), Err(KsError::Input(_))));
    assert!(matches!(stream::learn_many(&mut l, &[], 0, 3, &[]), Err(KsError::Input(_))));
    assert_eq!(l.n_seen(), 1);
    assert!(matches!(
        TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
            sigma: 0.0,
            degree: 2,
            lam: 1.0,
            ridge: false,
            ..Default::default()
        }),
        Err(KsError::Parameter(_))
    ));
    assert!(matches!(
        TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
            sigma: 1.0,
            degree: 2,
            lam: -1.0,
            ridge: false,
            ..Default::default()
        }),
        Err(KsError::Parameter(_))
    ));
    let big = TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
        sigma: 1.0,
        degree: 8,
        lam: 1.0,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    assert!(matches!(stream::predict_one(&big, &[0.0; 30]), Err(KsError::Parameter(_))));
}
