//! NystromAWV (PKAWV paper sec. 3.2, eqs. (4) and (7), Cor. 8, App. H.1 Algorithm 2):
//! equality with KernelAWV when every point is in the dictionary, the incremental
//! Cholesky path against a dense solve of eq. (4) on the dictionary's span at every
//! round, the fixed dictionary against linear AWV on `K_mm^{-1/2} k_m(x)`, robustness.
use kernelstream::awv::LinearAwv;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{KernelAwv, NystromAwv, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::samplers::KorsWeights;
use kernelstream::stream;
use nalgebra::{DMatrix, DVector};

fn data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> =
        (0..n).map(|i| (3.0 * x[i * d]).sin() + 0.2 * (2.0 * rng.uniform() - 1.0)).collect();
    (x, y)
}

#[test]
fn full_dictionary_equals_kernel_awv() {
    let (n, d) = (60, 3);
    let k = Kernel::Gaussian { sigma: 0.6 };
    let (x, y) = data(n, d, 1);
    for ridge in [false, true] {
        for w in [KorsWeights::Sqrt, KorsWeights::Inverse] {
            let mut nys = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
                kernel: Some(k),
                lam: 0.8,
                mu: 1.0,
                eps: 0.5,
                beta: 1e9,
                kors_weights: w,
                seed: 3,
                ridge,
                ..Default::default()
            })
            .unwrap();
            let mut exact = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
                kernel: Some(k),
                lam: 0.8,
                ridge,
                max_size: 1000,
            })
            .unwrap();
            let pn = stream::progressive_predict(&mut nys, &x, n, d, &y).unwrap();
            let pe = stream::progressive_predict(&mut exact, &x, n, d, &y).unwrap();
            assert_eq!(nys.size(), n, "every point must be in the dictionary");
            assert_eq!(nys.stats().refused_insertions, 0);
            for (a, b) in pn.iter().zip(&pe) {
                assert!((a - b).abs() < 1e-8, "{a} vs {b}");
            }
        }
    }
}

/// Eq. (4) on span{phi(x_j), j in D}, dense: A = K_{t,D}^T K_{t,D} + lam K_DD,
/// q = K_{t,D}^T (Y_{t-1}, 0), y_hat = k_D(x_t)^T A^{-1} q.
#[allow(clippy::too_many_arguments)]
fn dense_prediction(
    k: &Kernel,
    x: &[f64],
    y: &[f64],
    d: usize,
    t: usize,
    dict: &[usize],
    lam: f64,
    ridge: bool,
) -> f64 {
    let m = dict.len();
    if m == 0 {
        return 0.0;
    }
    let rows = if ridge { t } else { t + 1 };
    let xi = |i: usize| &x[i * d..(i + 1) * d];
    let kt = DMatrix::from_fn(rows, m, |s, j| k.eval(xi(s), xi(dict[j])));
    let kdd = DMatrix::from_fn(m, m, |i, j| k.eval(xi(dict[i]), xi(dict[j])));
    let a = kt.transpose() * &kt + kdd * lam;
    let yv = DVector::from_fn(rows, |s, _| if s < t { y[s] } else { 0.0 });
    let q = kt.transpose() * yv;
    let alpha = a.lu().solve(&q).unwrap();
    let kx = DVector::from_fn(m, |j, _| k.eval(xi(t), xi(dict[j])));
    kx.dot(&alpha)
}

#[test]
fn incremental_cholesky_equals_dense_solve_every_round() {
    let (n, d, lam) = (150, 2, 1.0);
    let k = Kernel::Gaussian { sigma: 1.0 };
    let (x, y) = data(n, d, 2);
    for ridge in [false, true] {
        let mut nys = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
            kernel: Some(k),
            lam,
            mu: 0.5,
            eps: 0.5,
            beta: 2.0,
            kors_weights: KorsWeights::Sqrt,
            seed: 7,
            ridge,
            ..Default::default()
        })
        .unwrap();
        for t in 0..n {
            let p_pure = nys.predict(&x[t * d..(t + 1) * d]).unwrap();
            let p = nys.predict_learn(&x[t * d..(t + 1) * d], y[t]).unwrap();
            assert_eq!(p, p_pure, "predict must make the same KORS decision as the round");
            let dict: Vec<usize> =
                nys.center_rounds().iter().map(|r| r.unwrap() as usize).collect();
            let dense = dense_prediction(&k, &x, &y, d, t, &dict, lam, ridge);
            assert!((p - dense).abs() < 1e-9 * (1.0 + dense.abs()), "t={t}: {p} vs dense {dense}");
        }
        assert!(nys.size() > 5 && nys.size() < n);
        // alpha = A_n^{-1} q_n after the last round, and q = K_{n,D}^T Y_n.
        let dict: Vec<usize> = nys.center_rounds().iter().map(|r| r.unwrap() as usize).collect();
        let m = dict.len();
        let xi = |i: usize| &x[i * d..(i + 1) * d];
        let kt = DMatrix::from_fn(n, m, |s, j| k.eval(xi(s), xi(dict[j])));
        let kdd = DMatrix::from_fn(m, m, |i, j| k.eval(xi(dict[i]), xi(dict[j])));
        let q = kt.transpose() * DVector::from_column_slice(&y);
        for (a, b) in nys.q().iter().zip(q.iter()) {
            assert!((a - b).abs() < 1e-10 * (1.0 + b.abs()));
        }
        // A is ill-conditioned (K_DD of a Gaussian kernel), so alpha itself is only
        // determined up to its near-null directions: check the residual of A alpha = q
        // and the fitted values K_{n,D} alpha.
        let a = kt.transpose() * &kt + kdd * lam;
        let alpha = a.clone().lu().solve(&q).unwrap();
        let ours = DVector::from_vec(nys.alpha());
        assert!((&a * &ours - &q).norm() <= 1e-9 * q.norm(), "{}", (&a * &ours - &q).norm());
        let fit = (&kt * &ours - &kt * &alpha).norm();
        assert!(fit <= 1e-7 * (&kt * &alpha).norm(), "{fit}");
    }
}

#[test]
fn fixed_dictionary_equals_linear_awv_on_nystrom_features() {
    let (n, d, m, lam) = (200, 3, 15, 0.5);
    let k = Kernel::Gaussian { sigma: 0.8 };
    let (x, y) = data(n, d, 3);
    let (centres, _) = data(m, d, 4);
    let kmm = DMatrix::from_fn(m, m, |i, j| {
        k.eval(&centres[i * d..(i + 1) * d], &centres[j * d..(j + 1) * d])
    });
    let eig = kmm.symmetric_eigen();
    let inv_sqrt = &eig.eigenvectors
        * DMatrix::from_diagonal(&eig.eigenvalues.map(|v| 1.0 / v.sqrt()))
        * eig.eigenvectors.transpose();
    for ridge in [false, true] {
        let mut nys = NystromAwv::with_dictionary(k, lam, &centres, d, ridge).unwrap();
        assert_eq!(nys.fixed_jitter(), 0.0);
        let mut lin = LinearAwv::new(m, lam, ridge).unwrap();
        for t in 0..n {
            let xt = &x[t * d..(t + 1) * d];
            let km = DVector::from_fn(m, |j, _| k.eval(xt, &centres[j * d..(j + 1) * d]));
            let v: Vec<f64> = (&inv_sqrt * km).iter().copied().collect();
            let pl = lin.predict_learn(&v, y[t]);
            let pn = nys.predict_learn(xt, y[t]).unwrap();
            assert!((pl - pn).abs() < 1e-8 * (1.0 + pl.abs()), "t={t}: {pn} vs {pl}");
        }
        assert_eq!(nys.size(), m);
    }
}

#[test]
fn repeated_points_stay_finite_and_are_refused() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let mut nys = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
        kernel: Some(k),
        lam: 1.0,
        mu: 1.0,
        eps: 0.5,
        beta: 100.0,
        kors_weights: KorsWeights::Sqrt,
        seed: 1,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    let x: Vec<f64> =
        (0..3000).flat_map(|i| if i % 2 == 0 { [0.1, 0.2] } else { [-0.4, 0.5] }).collect();
    let y: Vec<f64> = (0..3000).map(|i| (i % 3) as f64 - 1.0).collect();
    let p = stream::progressive_predict(&mut nys, &x, 3000, 2, &y).unwrap();
    assert!(p.iter().all(|v| v.is_finite()));
    assert!(nys.stats().refused_insertions > 0, "{:?}", nys.stats());
    assert!(nys.size() <= 4, "{}", nys.size());
    // A fixed dictionary with a duplicated point needs (and gets) a jitter.
    let dup = [0.1, 0.2, 0.1, 0.2, 0.5, 0.5];
    let mut f = NystromAwv::with_dictionary(k, 1.0, &dup, 2, false).unwrap();
    assert!(f.fixed_jitter() > 0.0 && f.stats().jitters > 0);
    let p = stream::progressive_predict(&mut f, &x[..200], 100, 2, &y[..100]).unwrap();
    assert!(p.iter().all(|v| v.is_finite()));
}

#[test]
fn same_seed_same_run_and_serde_continue() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let (x, y) = data(300, 4, 9);
    let run = |seed| {
        let mut a = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
            kernel: Some(k),
            lam: 1.0,
            mu: 1.0,
            eps: 0.5,
            beta: 1.0,
            kors_weights: KorsWeights::Sqrt,
            seed,
            ridge: false,
            ..Default::default()
        })
        .unwrap();
        (stream::progressive_predict(&mut a, &x, 300, 4, &y).unwrap(), a.size())
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5).0, run(6).0);
    let mut a = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
        kernel: Some(k),
        lam: 1.0,
        mu: 1.0,
        eps: 0.5,
        beta: 1.0,
        kors_weights: KorsWeights::Inverse,
        seed: 2,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    let mut whole = a.clone();
    let pw = stream::progressive_predict(&mut whole, &x, 300, 4, &y).unwrap();
    let mut p = stream::progressive_predict(&mut a, &x[..600], 150, 4, &y[..150]).unwrap();
    let mut b: NystromAwv = bincode::deserialize(&bincode::serialize(&a).unwrap()).unwrap();
    p.extend(stream::progressive_predict(&mut b, &x[600..], 150, 4, &y[150..]).unwrap());
    assert_eq!(p, pw);
}

#[test]
fn bad_parameters_and_dimensions() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let refused = |lam: f64, mu: f64| {
        NystromAwv::new(&kernelstream::learners::NystromAwvParams {
            kernel: Some(k),
            lam,
            mu,
            eps: 0.5,
            beta: 1.0,
            kors_weights: KorsWeights::Sqrt,
            seed: 0,
            ridge: false,
            ..Default::default()
        })
        .is_err()
    };
    assert!(refused(0.0, 1.0));
    assert!(refused(1.0, -1.0));
    assert!(NystromAwv::with_dictionary(k, 1.0, &[], 2, false).is_err());
    assert!(NystromAwv::with_dictionary(k, 1.0, &[1.0, f64::NAN], 2, false).is_err());
    let mut f = NystromAwv::with_dictionary(k, 1.0, &[0.0, 0.0, 1.0, 1.0], 2, false).unwrap();
    assert!(stream::learn_one(&mut f, &[0.0, 0.0, 0.0], 1.0).is_err());
    assert_eq!(f.n_seen(), 0);
    assert!(f.input_dim().is_none());
}
