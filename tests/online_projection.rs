//! Online projection estimator (Zhang and Simon, Algorithm 2, eqs. (19)-(22) and (74)):
//! schedule counts (Tables 2-3: `n = floor(0.2 N^5)`, `floor(0.5 N^3)`), online == batch
//! least squares, basis identities, domain checks.
use kernelstream::bases::{Basis1D, HermiteParams};
use kernelstream::kernels::Kernel;
use kernelstream::learners::online_projection::switch_on_index;
use kernelstream::learners::{OnlineLearner, OnlineProjection, ProjectionConfig};
use kernelstream::rng::Rng;
use nalgebra::{DMatrix, DVector};

fn cfg(basis: Basis1D, alpha: f64, c: f64) -> ProjectionConfig {
    ProjectionConfig {
        basis,
        alpha,
        c,
        prefix_degree: None,
        additive: false,
        pairs: false,
        refresh: true,
        tol: 1e-6,
    }
}

fn b4(x: f64) -> f64 {
    x.powi(4) - 2.0 * x.powi(3) + x * x - 1.0 / 30.0
}

#[test]
fn switch_on_indices_are_floor_c_n_kappa() {
    // t_N = floor(c N^kappa): Example 1 (c = 0.2, kappa = 5), Example 2 (c = 0.5, kappa = 3).
    let ex1: Vec<f64> = (1..=10).map(|n| switch_on_index(0.2, 5.0, n)).collect();
    assert_eq!(ex1, vec![0.0, 6.0, 48.0, 204.0, 625.0, 1555.0, 3361.0, 6553.0, 11809.0, 20000.0]);
    let ex2: Vec<f64> = (1..=10).map(|n| switch_on_index(0.5, 3.0, n)).collect();
    assert_eq!(ex2, vec![0.0, 4.0, 13.0, 32.0, 62.0, 108.0, 171.0, 256.0, 364.0, 500.0]);
}

#[test]
fn active_counts_on_a_stream() {
    // Example 1 (c = 0.2, kappa = 5): p = 3, 5, 8 at n = 1e2, 1e3, 1e4; Example 2: 5, 12, 27.
    for (basis, alpha, c, expect) in [
        (Basis1D::Trig { cos_first: false }, 2.0, 0.2, [3usize, 5, 8]),
        (Basis1D::Sine, 1.0, 0.5, [5, 12, 27]),
    ] {
        let mut l = OnlineProjection::with_config(cfg(basis, alpha, c)).unwrap();
        let mut rng = Rng::new(3);
        let mut got = vec![];
        for n in 1..=10_000usize {
            let x = rng.uniform();
            l.learn(&[x], b4(x) + 0.01 * rng.normal()).unwrap();
            if n == 100 || n == 1000 || n == 10_000 {
                got.push(l.dim());
            }
        }
        assert_eq!(got, expect.to_vec());
    }
}

/// Batch least squares (SVD) on the learner's own design matrix.
fn batch(l: &OnlineProjection, xs: &[f64], d: usize, ys: &[f64]) -> DVector<f64> {
    let psi = l.basis_matrix(xs, d).unwrap();
    let p = l.dim();
    let n = ys.len();
    let m = DMatrix::from_row_slice(n, p, &psi);
    let svd = m.svd(true, true);
    svd.solve(&DVector::from_row_slice(ys), 1e-12).unwrap()
}

#[test]
fn online_equals_batch_least_squares() {
    let trig = Basis1D::Trig { cos_first: false };
    let configs = vec![
        (cfg(Basis1D::Sine, 1.0, 0.5), 1usize),
        (ProjectionConfig { prefix_degree: Some(2), ..cfg(trig, 2.0, 1.0 / 30.0) }, 1),
        (ProjectionConfig { prefix_degree: Some(2), additive: true, ..cfg(trig, 2.0, 0.2) }, 3),
        (ProjectionConfig { refresh: false, pairs: true, ..cfg(trig, 2.0, 0.2) }, 1),
        (cfg(Basis1D::Sine, 1.5, 0.3), 2),
    ];
    for (c, d) in configs {
        let mut l = OnlineProjection::with_config(c).unwrap();
        let mut rng = Rng::new(11);
        let (mut xs, mut ys) = (vec![], vec![]);
        for n in 1..=4000usize {
            let x: Vec<f64> = (0..d).map(|_| rng.uniform()).collect();
            let y = (5.0 * x.iter().sum::<f64>()).sin() + 0.1 * rng.normal();
            l.learn(&x, y).unwrap();
            xs.extend_from_slice(&x);
            ys.push(y);
            if n % 500 == 0 {
                let th = batch(&l, &xs, d, &ys);
                let online = l.coefficients();
                let scale = th.amax();
                let err =
                    online.iter().zip(th.iter()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                assert!(err <= 1e-10 * scale, "{c:?} n={n}: {err}");
            }
        }
    }
}

#[test]
fn bases_match_closed_forms_and_kernel_series() {
    // A learner whose first 300 units are active after one sample exposes psi_1..psi_300.
    let mut l =
        OnlineProjection::with_config(cfg(Basis1D::Trig { cos_first: false }, 1.0, 1e-8)).unwrap();
    l.learn(&[0.5], 0.0).unwrap();
    let grid: Vec<f64> = (0..=40).map(|i| i as f64 / 40.0).collect();
    let psi = l.basis_matrix(&grid, 1).unwrap();
    let p = l.dim();
    assert!(p >= 300);
    for (i, &x) in grid.iter().enumerate() {
        for j in 1..=300usize {
            let k = j.div_ceil(2) as f64;
            let w = 2.0 * std::f64::consts::PI * k * x;
            let e = std::f64::consts::SQRT_2 * if j % 2 == 1 { w.sin() } else { w.cos() };
            assert!((psi[i * p + j - 1] - e).abs() < 1e-12);
        }
    }
    // -B4({s - t})/24 = sum_j lambda_j psi_j(s) psi_j(t), up to the tail beyond frequency 150
    let k = Kernel::BernoulliPeriodic;
    let basis = Basis1D::Trig { cos_first: false };
    for (a, b) in [(0.0, 0.3), (0.7, 0.1), (0.25, 0.25)] {
        let (ia, ib) = ((a * 40.0) as usize, (b * 40.0) as usize);
        let s: f64 = (1..=300)
            .map(|j| basis.eigenvalue(j) * psi[ia * p + j - 1] * psi[ib * p + j - 1])
            .sum();
        // tail: sum_{k > 150} 2 / (2 pi k)^4 <= 2 / (2 pi)^4 / (3 * 150^3)
        let tail = 2.0 / (2.0 * std::f64::consts::PI).powi(4) / (3.0 * 150f64.powi(3));
        assert!((s - k.eval(&[a], &[b])).abs() <= tail + 1e-14);
    }
}

#[test]
fn hermite_functions_are_finite_for_high_orders() {
    let h = HermiteParams { a: 1.0, eps: 0.7 };
    let mut out = vec![0.0; 500];
    for x in [0.0, 1.0, -5.0, 29.9, -29.9] {
        h.eval_into(x, &mut out);
        assert!(out.iter().all(|v| v.is_finite()));
    }
    // psi_1 (a = 1): sqrt(beta) exp(-delta^2 x^2)
    h.eval_into(0.8, &mut out);
    let e = h.beta().sqrt() * (-h.delta2() * 0.64).exp();
    assert!((out[0] - e).abs() < 1e-15);
}

#[test]
fn outside_the_domain_is_an_input_error() {
    let l = OnlineProjection::with_config(cfg(Basis1D::Sine, 1.0, 0.5)).unwrap();
    assert!(matches!(l.check_row(&[1.5], Some(0.0)), Err(kernelstream::KsError::Input(_))));
    assert!(l.check_row(&[1.0], Some(0.0)).is_ok());
    let mut l2 = l.clone();
    let r = kernelstream::stream::learn_many(&mut l2, &[0.2, -0.1], 2, 1, &[0.0, 0.0]);
    assert!(r.is_err());
    assert_eq!(l2.n_seen(), 0);
}
