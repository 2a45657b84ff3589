//! Discounted NystromAWV with a KORS dictionary (`gamma = 0.99`) over 10^6 rounds of
//! inputs on a line in R^3 (docs/choices.md, "Discounted AWV", KORS): the data excite
//! few directions of `k_D(x)`, the others keep only the refilled regulariser. The
//! predictions stay finite and bounded, and `A_phi = R^{-1} A R^{-T}` (`R R^T = K_DD`)
//! keeps its smallest eigenvalue above the bound `lam (1 - gamma) gamma^(m + 1)`
//! (the refill pointer returns to every coordinate within `m + 1` rounds), so
//! `||A_phi^{-1}||` stays bounded (blocks of 64 rounds between
//! insertions, single rounds at one).

use kernelstream::kernels::Kernel;
use kernelstream::learners::{NystromAwv, NystromAwvParams, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::stream;
use nalgebra::DMatrix;

/// The smallest eigenvalue of `A_phi = (R^{-1} L)(R^{-1} L)^T`.
fn min_eig_phi(model: &NystromAwv, kernel: Kernel) -> f64 {
    let m = model.size();
    let c = model.centers();
    let kdd = DMatrix::from_row_slice(m, m, &kernel.gram(c, c, 3));
    let r = kdd.cholesky().expect("K_DD positive definite").l();
    let l = DMatrix::from_row_slice(m, m, &model.cholesky_dense());
    let mm = r.solve_lower_triangular(&l).expect("R invertible");
    (&mm * mm.transpose()).symmetric_eigenvalues().min()
}

#[test]
fn a_million_rounds_on_a_line_stay_finite_and_bounded() {
    let (gamma, lam) = (0.99, 0.1);
    let kernel = Kernel::Gaussian { sigma: 0.5 };
    let p = NystromAwvParams {
        kernel: Some(kernel),
        lam,
        seed: 1,
        gamma,
        block_size: Some(64),
        ..Default::default()
    };
    let mut model = NystromAwv::new(&p).unwrap();
    let mut rng = Rng::new(7);
    let (chunk, chunks) = (100_000, 10);
    let mut last_err = 0.0;
    for _ in 0..chunks {
        let mut x = Vec::with_capacity(3 * chunk);
        let mut y = Vec::with_capacity(chunk);
        for _ in 0..chunk {
            let u = 2.0 * rng.uniform() - 1.0;
            x.extend_from_slice(&[u, 2.0 * u, -u]);
            y.push((3.0 * u).sin() + 0.1 * rng.normal());
        }
        let pred = stream::progressive_predict(&mut model, &x, chunk, 3, &y).unwrap();
        assert!(pred.iter().all(|p| p.is_finite() && p.abs() < 10.0));
        assert!(model.alpha().iter().all(|a| a.is_finite()));
        let m = model.size() as f64;
        let bound = lam * (1.0 - gamma) * gamma.powf(m + 1.0);
        let e = min_eig_phi(&model, kernel);
        assert!(e >= bound, "lambda_min(A_phi) = {e} below the bound {bound}");
        let tail = &pred[chunk - 1000..];
        let xs = x[3 * (chunk - 1000)..].chunks_exact(3);
        last_err = tail.iter().zip(xs).map(|(p, x)| (p - (3.0 * x[0]).sin()).powi(2)).sum::<f64>()
            / 1000.0;
    }
    assert_eq!(model.n_seen(), (chunk * chunks) as u64);
    assert!(model.stats().insertions >= 5);
    assert!(model.blocked_rounds() > (chunk * chunks / 2) as u64);
    assert!(last_err < 0.05, "mean squared error {last_err}");
}
