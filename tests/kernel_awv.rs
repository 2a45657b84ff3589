//! KernelAWV (PKAWV paper eq. (3), Prop. 1 and its proof, App. C.1): the closed forms
//! `y_hat = -lam [(K_t + lam I)^{-1} (Y_{t-1}, 0)]_t = lam / s_t * p_KRR` against dense
//! solves, the regret inequality, the batched path against single rounds, capacity handling.
use kernelstream::kernels::Kernel;
use kernelstream::learners::{KernelAwv, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::stream;
use nalgebra::{DMatrix, DVector};

fn data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> =
        (0..n).map(|i| (3.0 * x[i * d]).sin() + 0.2 * (2.0 * rng.uniform() - 1.0)).collect();
    (x, y)
}

fn gram(k: &Kernel, x: &[f64], d: usize, n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| k.eval(&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]))
}

#[test]
fn awv_and_krr_identities_of_spec_1_1() {
    let (n, d, lam) = (120, 3, 0.7);
    let k = Kernel::Gaussian { sigma: 0.9 };
    let (x, y) = data(n, d, 1);
    let kfull = gram(&k, &x, d, n);
    let mut awv = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam,
        ridge: false,
        max_size: 1000,
    })
    .unwrap();
    let mut krr = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam,
        ridge: true,
        max_size: 1000,
    })
    .unwrap();
    for t in 0..n {
        let xt = &x[t * d..(t + 1) * d];
        let p_awv = awv.predict_learn(xt, y[t]).unwrap();
        let p_krr = krr.predict_learn(xt, y[t]).unwrap();
        // AWV: y_hat = -lam [(K_t + lam I)^{-1} (Y_{t-1}, 0)]_t (K_t includes x_t).
        let kt =
            kfull.view((0, 0), (t + 1, t + 1)).into_owned() + DMatrix::identity(t + 1, t + 1) * lam;
        let mut ytil = DVector::from_column_slice(&y[..=t]);
        ytil[t] = 0.0;
        let alpha = kt.clone().lu().solve(&ytil).unwrap();
        let expect_awv = -lam * alpha[t];
        assert!((p_awv - expect_awv).abs() < 1e-10, "t={t}: {p_awv} vs {expect_awv}");
        // KRR: k^T (K_{t-1} + lam I)^{-1} Y_{t-1}; AWV = lam / s_t * KRR.
        if t == 0 {
            assert_eq!(p_awv, 0.0);
            assert_eq!(p_krr, 0.0);
            continue;
        }
        let g = kfull.view((0, 0), (t, t)).into_owned() + DMatrix::identity(t, t) * lam;
        let kv = DVector::from_fn(t, |s, _| kfull[(s, t)]);
        let ginv_k = g.clone().lu().solve(&kv).unwrap();
        let ginv_y = g.lu().solve(&DVector::from_column_slice(&y[..t])).unwrap();
        let expect_krr = kv.dot(&ginv_y);
        assert!((p_krr - expect_krr).abs() < 1e-10, "t={t}: {p_krr} vs {expect_krr}");
        let s = kfull[(t, t)] + lam - kv.dot(&ginv_k);
        assert!(s >= lam - 1e-12);
        assert!((p_awv - lam / s * p_krr).abs() < 1e-10);
    }
    // The factor is the Cholesky factor of K_n + lam I.
    let l = DMatrix::from_row_slice(n, n, &awv.cholesky_dense());
    let kl = &kfull + DMatrix::identity(n, n) * lam;
    assert!((&l * l.transpose() - &kl).norm() / kl.norm() < 1e-13);
}

#[test]
fn regret_inequality_of_spec_4a7() {
    // sum (y - y_hat)^2 - min_f [sum (y - f)^2 + lam ||f||^2]
    //   <= sum_t y_t^2 <A_t^{-1} phi_t, phi_t> <= B^2 log det(I + K/lam).
    let (n, d, lam) = (200, 4, 1.0);
    let k = Kernel::Gaussian { sigma: 1.0 };
    let (x, y) = data(n, d, 3);
    let b = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut awv = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam,
        ridge: false,
        max_size: 1000,
    })
    .unwrap();
    let preds = stream::progressive_predict(&mut awv, &x, n, d, &y).unwrap();
    let loss: f64 = preds.iter().zip(&y).map(|(p, t)| (p - t).powi(2)).sum();
    let kk = gram(&k, &x, d, n);
    let yv = DVector::from_column_slice(&y);
    let best = lam * yv.dot(&(&kk + DMatrix::identity(n, n) * lam).lu().solve(&yv).unwrap());
    let regret = loss - best;
    let logdet: f64 = (DMatrix::identity(n, n) + &kk / lam)
        .cholesky()
        .unwrap()
        .l()
        .diagonal()
        .iter()
        .map(|v| 2.0 * v.ln())
        .sum();
    assert!(regret <= awv.regret_term() + 1e-9, "{regret} vs {}", awv.regret_term());
    assert!(awv.regret_term() <= b * b * logdet + 1e-9);
    assert!(regret > 0.0);
}

#[test]
fn batched_rounds_are_bit_identical_to_single_rounds() {
    // Long enough to cross several panels (256 columns) and blocks (48 rows).
    let (n, d) = (700, 3);
    let k = Kernel::Laplacian { sigma: 1.3 };
    let (x, y) = data(n, d, 5);
    for ridge in [false, true] {
        let mut single = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
            kernel: Some(k),
            lam: 0.5,
            ridge,
            max_size: 2000,
        })
        .unwrap();
        let p_single: Vec<f64> = (0..n)
            .map(|t| {
                let xt = &x[t * d..(t + 1) * d];
                let p = single.predict(xt).unwrap();
                assert_eq!(p, single.predict_learn(xt, y[t]).unwrap());
                p
            })
            .collect();
        // One batch, and batches cut at awkward places.
        let mut whole = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
            kernel: Some(k),
            lam: 0.5,
            ridge,
            max_size: 2000,
        })
        .unwrap();
        assert_eq!(p_single, stream::progressive_predict(&mut whole, &x, n, d, &y).unwrap());
        let mut cut = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
            kernel: Some(k),
            lam: 0.5,
            ridge,
            max_size: 2000,
        })
        .unwrap();
        let mut p_cut = Vec::new();
        let mut s = 0;
        for e in [1, 2, 50, 257, 300, 511, 700] {
            p_cut.extend(
                stream::progressive_predict(&mut cut, &x[s * d..e * d], e - s, d, &y[s..e])
                    .unwrap(),
            );
            s = e;
        }
        assert_eq!(p_single, p_cut);
        let mut learned = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
            kernel: Some(k),
            lam: 0.5,
            ridge,
            max_size: 2000,
        })
        .unwrap();
        stream::learn_many(&mut learned, &x, n, d, &y).unwrap();
        assert_eq!(learned.cholesky_dense(), single.cholesky_dense());
    }
}

#[test]
fn capacity_is_enforced_before_any_change() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let (x, y) = data(30, 2, 7);
    let mut a = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam: 1.0,
        ridge: false,
        max_size: 25,
    })
    .unwrap();
    stream::learn_many(&mut a, &x[..40], 20, 2, &y[..20]).unwrap();
    let before = bincode::serialize(&a).unwrap();
    let err = stream::progressive_predict(&mut a, &x[40..], 10, 2, &y[20..]).unwrap_err();
    assert!(err.to_string().contains("max_size"));
    assert_eq!(before, bincode::serialize(&a).unwrap());
    stream::learn_many(&mut a, &x[40..50], 5, 2, &y[20..25]).unwrap();
    assert!(stream::learn_one(&mut a, &x[50..52], y[25]).is_err());
    assert_eq!(a.n_seen(), 25);
    assert!(KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam: 0.0,
        ridge: false,
        max_size: 10
    })
    .is_err());
    assert!(KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam: 1.0,
        ridge: false,
        max_size: 0
    })
    .is_err());
}

#[test]
fn repeated_point_stays_finite() {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let mut a = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
        kernel: Some(k),
        lam: 1e-6,
        ridge: false,
        max_size: 3000,
    })
    .unwrap();
    let x = vec![0.3; 2 * 2000];
    let y: Vec<f64> = (0..2000).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let p = stream::progressive_predict(&mut a, &x, 2000, 2, &y).unwrap();
    assert!(p.iter().all(|v| v.is_finite()));
}
