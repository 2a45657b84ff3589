//! KORS (PROS-N-KONS paper App. A, Algorithm 1 and Eq. 6):
//! the closed form against the temporary-dictionary formula, the first inclusion
//! probability, the maintained inverse, reproducibility, robustness.
use kernelstream::kernels::Kernel;
use kernelstream::rng::Rng;
use kernelstream::samplers::{Kors, KorsWeights};
use nalgebra::{DMatrix, DVector};

fn points(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (0..d).map(|_| 2.0 * rng.uniform() - 1.0).collect()).collect()
}

/// Eq. (6) of the PROS-N-KONS paper, computed densely on the temporary dictionary
/// `D u {(t, 1)}`: `(1+eps)/mu (k_tt - u^T (S K S + mu I)^{-1} u)`, `u` the column of
/// `S K S` for `x_t` (with `S = diag(w_1..w_m, 1)`).
fn tau_eq6(k: &Kernel, dict: &[Vec<f64>], w: &[f64], x: &[f64], mu: f64, eps: f64) -> f64 {
    let mut pts: Vec<&[f64]> = dict.iter().map(|p| p.as_slice()).collect();
    pts.push(x);
    let mut ws = w.to_vec();
    ws.push(1.0);
    let n = pts.len();
    let sks = DMatrix::from_fn(n, n, |i, j| ws[i] * ws[j] * k.eval(pts[i], pts[j]));
    let u = DVector::from_fn(n, |i, _| ws[i] * k.eval(pts[i], x));
    let m = &sks + DMatrix::identity(n, n) * mu;
    let sol = m.lu().solve(&u).unwrap();
    (1.0 + eps) / mu * (k.eval(x, x) - u.dot(&sol))
}

#[test]
fn closed_form_equals_temporary_dictionary_formula() {
    for weights in [KorsWeights::Sqrt, KorsWeights::Inverse] {
        for &(mu, eps, beta, sigma) in
            &[(1.0, 0.5, 1.0, 1.0), (0.1, 0.3, 2.0, 0.7), (0.01, 0.5, 5.0, 2.0)]
        {
            let k = Kernel::Gaussian { sigma };
            let mut kors = Kors::new(k, mu, eps, beta, weights, 4).unwrap();
            let xs = points(150, 3, 9);
            let mut dict: Vec<Vec<f64>> = Vec::new();
            for x in &xs {
                let tau = tau_eq6(&k, &dict, kors.weights(), x, mu, eps);
                let p = kors.probability(x).unwrap();
                let expect = (beta * tau).clamp(0.0, 1.0);
                // The dense formula loses ~cond digits in k_tt - u^T M^{-1} u, amplified by beta (1+eps)/mu.
                let tol = 1e-11 * beta * (1.0 + eps) / mu;
                assert!((p - expect).abs() < tol, "mu {mu}: p {p} vs Eq. 6 {expect}");
                let peek = kors.peek(x).unwrap();
                let step = kors.step_full(x).unwrap();
                assert_eq!(peek, step);
                if step.added {
                    dict.push(x.clone());
                    let w_last = *kors.weights().last().unwrap();
                    let w_expect = match weights {
                        KorsWeights::Sqrt => 1.0 / p.sqrt(),
                        KorsWeights::Inverse => 1.0 / p,
                    };
                    assert!((w_last - w_expect).abs() < 1e-12);
                }
            }
            assert!(!dict.is_empty());
        }
    }
}

#[test]
fn first_inclusion_probability_is_three_quarters() {
    let mut kors =
        Kors::new(Kernel::Gaussian { sigma: 1.0 }, 1.0, 0.5, 1.0, KorsWeights::Sqrt, 0).unwrap();
    let x = [0.3, -0.2, 0.9];
    assert!((kors.probability(&x).unwrap() - 0.75).abs() < 1e-15);
    let s = kors.step_full(&x).unwrap();
    assert!((s.prob - 0.75).abs() < 1e-15);
    // p_t <= 0.75 forever after (res <= k_tt = 1).
    for x in points(300, 3, 1) {
        assert!(kors.step_full(&x).unwrap().prob <= 0.75 + 1e-15);
    }
}

#[test]
fn maintained_inverse_matches_dense_inverse() {
    for weights in [KorsWeights::Sqrt, KorsWeights::Inverse] {
        let k = Kernel::Gaussian { sigma: 0.8 };
        let mu = 0.05;
        let mut kors = Kors::new(k, mu, 0.5, 3.0, weights, 2).unwrap();
        for x in points(400, 4, 3) {
            kors.step(&x).unwrap();
        }
        let m = kors.size();
        assert!(m > 20, "dictionary too small for the test: {m}");
        let d = 4;
        let p = kors.points();
        let w = kors.weights();
        let mat = DMatrix::from_fn(m, m, |i, j| {
            w[i] * w[j] * k.eval(&p[i * d..(i + 1) * d], &p[j * d..(j + 1) * d])
                + if i == j { mu } else { 0.0 }
        });
        let inv = mat.try_inverse().unwrap();
        let ours = DMatrix::from_row_slice(m, m, &kors.minv_dense());
        let rel = (&ours - &inv).norm() / inv.norm();
        assert!(rel < 1e-10, "relative error {rel}");
    }
}

#[test]
fn dictionary_only_grows_and_is_reproducible() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let xs = points(500, 5, 7);
    let run = |seed: u64| {
        let mut kors = Kors::new(k, 1.0, 0.5, 1.0, KorsWeights::Sqrt, seed).unwrap();
        let mut last = 0;
        for (t, x) in xs.iter().enumerate() {
            let added = kors.step(x).unwrap();
            assert!(kors.size() >= last);
            assert_eq!(kors.size(), last + added as usize);
            if added {
                assert_eq!(*kors.indices().last().unwrap(), t as u64);
                assert_eq!(&kors.points()[last * 5..], x.as_slice());
            }
            last = kors.size();
        }
        (kors.indices().to_vec(), kors.probabilities().to_vec())
    };
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a.0, run(12).0);
    // Probabilities lie in (0, 1].
    assert!(a.1.iter().all(|&p| p > 0.0 && p <= 1.0));
}

#[test]
fn one_uniform_draw_per_step() {
    // The decisions are exactly u_t < p_t with u_t the t-th uniform of Rng(seed).
    let k = Kernel::Gaussian { sigma: 1.0 };
    let mut kors = Kors::new(k, 1.0, 0.5, 1.0, KorsWeights::Inverse, 99).unwrap();
    let mut rng = Rng::new(99);
    for x in points(300, 2, 5) {
        let s = kors.step_full(&x).unwrap();
        let u = rng.uniform();
        assert_eq!(s.draw, u);
        assert_eq!(s.added, u < s.prob);
    }
}

#[test]
fn inverse_weights_give_a_smaller_dictionary() {
    // Spec 1.6: the paper code's 1/p weights inflate W K W, shrinking residuals.
    let k = Kernel::Gaussian { sigma: 1.0 };
    let xs = points(3000, 5, 21);
    let size = |w| {
        let mut kors = Kors::new(k, 1.0, 0.5, 1.0, w, 3).unwrap();
        for x in &xs {
            kors.step(x).unwrap();
        }
        kors.size()
    };
    let (s, i) = (size(KorsWeights::Sqrt), size(KorsWeights::Inverse));
    assert!(i < s, "inverse {i} vs sqrt {s}");
}

#[test]
fn repeated_point_stays_finite() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    for weights in [KorsWeights::Sqrt, KorsWeights::Inverse] {
        let mut kors = Kors::new(k, 1e-6, 0.5, 50.0, weights, 1).unwrap();
        let x = [0.1, 0.2];
        for _ in 0..5000 {
            let s = kors.step_full(&x).unwrap();
            assert!(s.prob.is_finite() && s.residual.is_finite());
        }
        assert!(kors.minv_dense().iter().all(|v| v.is_finite()));
        assert!(kors.weights().iter().all(|v| v.is_finite()));
        assert!(kors.probability(&x).unwrap().is_finite());
    }
}

#[test]
fn bad_input_is_refused_without_state_change() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let mut kors = Kors::new(k, 1.0, 0.5, 1.0, KorsWeights::Sqrt, 0).unwrap();
    for x in points(20, 3, 2) {
        kors.step(&x).unwrap();
    }
    let before = bincode::serialize(&kors).unwrap();
    assert!(kors.step(&[0.0, 1.0]).is_err());
    assert!(kors.step(&[0.0, f64::NAN, 1.0]).is_err());
    assert!(kors.step(&[]).is_err());
    assert!(kors.step_with_row(&[0.0, 0.0, 0.0], &[1.0; 100]).is_err());
    assert_eq!(before, bincode::serialize(&kors).unwrap());
    assert!(Kors::new(k, 0.0, 0.5, 1.0, KorsWeights::Sqrt, 0).is_err());
    assert!(Kors::new(k, 1.0, -0.5, 1.0, KorsWeights::Sqrt, 0).is_err());
    assert!(Kors::new(k, 1.0, 0.5, f64::NAN, KorsWeights::Sqrt, 0).is_err());
    assert!(KorsWeights::from_name("paper").is_err());
}

#[test]
fn serde_round_trip_continues_identically() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let xs = points(400, 3, 8);
    let mut a = Kors::new(k, 1.0, 0.5, 1.0, KorsWeights::Sqrt, 5).unwrap();
    for x in &xs[..200] {
        a.step(x).unwrap();
    }
    let mut b: Kors = bincode::deserialize(&bincode::serialize(&a).unwrap()).unwrap();
    let mut c = a.clone();
    for x in &xs[200..] {
        let s = a.step_full(x).unwrap();
        assert_eq!(s, b.step_full(x).unwrap());
        assert_eq!(s, c.step_full(x).unwrap());
    }
    assert_eq!(a.indices(), b.indices());
}

#[test]
fn budget_caps_the_dictionary_but_keeps_the_draws() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let xs = points(300, 3, 4);
    let mut a = Kors::new(k, 1.0, 0.5, 1.0, KorsWeights::Sqrt, 8).unwrap();
    let mut b = a.clone();
    a.set_budget(Some(10));
    let mut rng = Rng::new(8);
    for x in &xs {
        let pa = a.peek(x).unwrap();
        let sa = a.step_full(x).unwrap();
        assert_eq!(pa, sa);
        assert_eq!(sa.draw, rng.uniform());
        b.step(x).unwrap();
    }
    assert_eq!(a.size(), 10);
    assert!(b.size() > 10);
    assert_eq!(a.indices(), &b.indices()[..10]);
}
