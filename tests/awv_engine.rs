//! Linear AWV engine (PKAWV paper, App. H.1 Algorithm 1, with `A_{t-1}^{-1}` on the right of
//! its Sherman-Morrison line: docs/choices.md):
//! identities and long-stream accuracy of the Sherman-Morrison inverse.
use kernelstream::awv::LinearAwv;
use kernelstream::rng::Rng;
use nalgebra::{DMatrix, DVector};

fn random_stream(n: usize, r: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let vs = (0..n).map(|_| (0..r).map(|_| rng.normal() / (r as f64).sqrt()).collect()).collect();
    let ys = (0..n).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    (vs, ys)
}

#[test]
fn first_prediction_is_zero_and_awv_is_ridge_over_one_plus_leverage() {
    let (vs, ys) = random_stream(200, 9, 11);
    let mut awv = LinearAwv::new(9, 0.7, false).unwrap();
    let mut ridge = LinearAwv::new(9, 0.7, true).unwrap();
    for (t, (v, &y)) in vs.iter().zip(&ys).enumerate() {
        // delta = v^T A_{t-1}^{-1} v, computed from the dense inverse.
        let ainv = DMatrix::from_row_slice(9, 9, &awv.ainv_dense());
        let vv = DVector::from_column_slice(v);
        let delta = vv.dot(&(&ainv * &vv));
        let p_awv = awv.predict_learn(v, y);
        let p_ridge = ridge.predict_learn(v, y);
        if t == 0 {
            assert_eq!(p_awv, 0.0);
            assert_eq!(p_ridge, 0.0);
        }
        assert!((p_awv - p_ridge / (1.0 + delta)).abs() <= 1e-12 * (1.0 + p_ridge.abs()));
        assert!((awv.last_leverage() - delta / (1.0 + delta)).abs() < 1e-12);
    }
}

#[test]
fn predict_is_pure_and_equals_fused_round() {
    let (vs, ys) = random_stream(50, 6, 3);
    let mut a = LinearAwv::new(6, 1.0, false).unwrap();
    for (v, &y) in vs.iter().zip(&ys) {
        let before = a.ainv_packed().to_vec();
        let p = a.predict(v);
        assert_eq!(before, a.ainv_packed());
        assert_eq!(p, a.predict_learn(v, y));
    }
}

#[test]
fn inverse_stays_accurate_over_1e5_rounds() {
    // Relative Frobenius error of the Sherman-Morrison A^{-1} against a fresh
    // inverse of A = lam I + sum v v^T, after 10^5 rounds (issue 2 target: 1e-9).
    let (r, n) = (40usize, 100_000usize);
    let mut rng = Rng::new(99);
    let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
    let mut a = DMatrix::<f64>::identity(r, r);
    let mut v = vec![0.0; r];
    for _ in 0..n {
        // Taylor-like scale: ||v||^2 <= 1, correlated coordinates.
        let base = rng.normal();
        for x in v.iter_mut() {
            *x = (0.5 * base + rng.normal()) / (1.25 * r as f64).sqrt();
        }
        eng.learn(&v, 0.3);
        let vv = DVector::from_column_slice(&v);
        a += &vv * vv.transpose();
    }
    let fresh = a.cholesky().unwrap().inverse();
    let ours = DMatrix::from_row_slice(r, r, &eng.ainv_dense());
    let rel = (&ours - &fresh).norm() / fresh.norm();
    eprintln!("relative error of A^-1 after {n} rounds: {rel:.3e}");
    assert!(rel < 1e-9, "relative error {rel:e}");
}
