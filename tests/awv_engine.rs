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
    // inverse of A = lam I + sum v v^T, after 10^5 rounds (target: 1e-9).
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

/// The scale of the rounding error of a prediction `x^T A^{-1} b`: its terms are
/// bounded by `||x|| ||b|| ||A^{-1}||` with `||A^{-1}|| <= 1 / lam`; the gap
/// between two summation orders is a few eps times this (times cond(A) through
/// the errors of A^{-1}), so well-conditioned streams compare `|p|` instead.
fn scale(x: &[f64], b: &[f64], lam: f64, p: f64) -> f64 {
    let n = |v: &[f64]| v.iter().map(|t| t * t).sum::<f64>().sqrt();
    if lam >= 0.1 {
        1e-3 + p.abs()
    } else {
        n(x) * n(b) / lam
    }
}

/// Runs `xs` through `a` single round by single round and through `b` in blocks
/// of the given sizes (cycled); returns the largest prediction gap relative to
/// [`scale`] and the number of blocks that ran blocked.
fn blocked_vs_single(
    a: &mut LinearAwv,
    b: &mut LinearAwv,
    vs: &[Vec<f64>],
    ys: &[f64],
    sizes: &[usize],
) -> (f64, usize) {
    let mut gap = 0.0f64;
    let (mut t, mut k, mut blocked) = (0usize, 0usize, 0usize);
    let mut out = Vec::new();
    while t < vs.len() {
        let n = sizes[k % sizes.len()].min(vs.len() - t);
        k += 1;
        let x: Vec<f64> = vs[t..t + n].concat();
        out.clear();
        blocked += b.predict_learn_block(&x, &ys[t..t + n], &mut out) as usize;
        for i in 0..n {
            let p = a.predict_learn(&vs[t + i], ys[t + i]);
            gap = gap.max((p - out[i]).abs() / scale(&vs[t + i], a.b(), a.lam(), p));
        }
        t += n;
    }
    (gap, blocked)
}

/// Relative Frobenius distance between the two engines' `A^{-1}`.
fn state_gap(a: &LinearAwv, b: &LinearAwv) -> f64 {
    let (x, y) = (a.ainv_packed(), b.ainv_packed());
    let d: f64 = x.iter().zip(&y).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
    d / x.iter().map(|p| p * p).sum::<f64>().sqrt()
}

#[test]
fn blocks_equal_single_rounds_over_1e5_rounds() {
    // Woodbury blocks vs Sherman-Morrison rounds, AWV and ridge, irregular block
    // sizes: the state and the predictions agree to 1e-10 relative.
    let (r, n) = (12usize, 100_000usize);
    let (vs, ys) = random_stream(n, r, 5);
    for ridge in [false, true] {
        let mut a = LinearAwv::new(r, 0.5, ridge).unwrap();
        let mut b = a.clone();
        let (gap, blocked) = blocked_vs_single(&mut a, &mut b, &vs, &ys, &[16, 7, 64, 2, 33]);
        let sg = state_gap(&a, &b);
        eprintln!("ridge {ridge}: prediction gap {gap:.2e}, state gap {sg:.2e}, {blocked} blocks");
        assert!(gap < 1e-10 && sg < 1e-10, "gap {gap:e} state {sg:e}");
        assert!(blocked > 0);
        assert_eq!(a.b(), b.b());
        assert_eq!(a.n_seen(), b.n_seen());
        assert!((a.regret_term() - b.regret_term()).abs() <= 1e-10 * a.regret_term());
        assert!((a.last_leverage() - b.last_leverage()).abs() <= 1e-10);
    }
}

#[test]
fn blocks_equal_single_rounds_across_panels() {
    // r above the 128-column panel of the products; a block of 64 and a ragged one.
    let r = 300;
    let (vs, ys) = random_stream(400, r, 8);
    for ridge in [false, true] {
        let mut a = LinearAwv::new(r, 1.0, ridge).unwrap();
        let mut b = a.clone();
        let (gap, blocked) = blocked_vs_single(&mut a, &mut b, &vs, &ys, &[64, 64, 45]);
        let sg = state_gap(&a, &b);
        assert!(gap < 1e-10 && sg < 1e-10, "gap {gap:e} state {sg:e}");
        assert_eq!(blocked, 7);
    }
}

#[test]
fn near_singular_features_fall_back_or_agree() {
    // Rank-3 features in r = 10 with tiny lam, repeated rows inside a block: the
    // blocked recursion cancels heavily; blocks that fail the check run as single
    // rounds, so the state still agrees with single rounds to 1e-10; predictions,
    // whose conditioning is that of A (about 1 / lam), agree to rounding.
    let (r, n) = (10usize, 20_000usize);
    let mut rng = Rng::new(17);
    let basis: Vec<Vec<f64>> = (0..3).map(|_| (0..r).map(|_| rng.normal()).collect()).collect();
    let mut vs = Vec::with_capacity(n);
    for t in 0..n {
        if t % 5 == 4 {
            let prev: Vec<f64> = vs.last().cloned().unwrap();
            vs.push(prev);
            continue;
        }
        let c: Vec<f64> = (0..3).map(|_| rng.normal()).collect();
        vs.push((0..r).map(|i| (0..3).map(|k| c[k] * basis[k][i]).sum()).collect());
    }
    let ys: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
    for (lam, ridge) in [(1e-8, false), (1e-8, true), (1e-3, false)] {
        let mut a = LinearAwv::new(r, lam, ridge).unwrap();
        let mut b = a.clone();
        let (gap, blocked) = blocked_vs_single(&mut a, &mut b, &vs, &ys, &[32]);
        let sg = state_gap(&a, &b);
        eprintln!(
            "lam {lam} ridge {ridge}: gap {gap:.2e} state {sg:.2e}, {blocked}/{} blocked",
            n / 32
        );
        assert!(gap < 1e-12 && sg < 1e-10, "gap {gap:e} state {sg:e}");
        // The first block (A^{-1} = I / lam, a repeated row) fails the check.
        assert!(blocked < n / 32, "no block fell back");
    }
}

#[test]
fn pending_update_is_applied_for_every_reader() {
    let r = 9;
    let (vs, ys) = random_stream(30, r, 21);
    let mut a = LinearAwv::new(r, 0.8, false).unwrap();
    let mut two_pass = LinearAwv::new(r, 0.8, false).unwrap();
    for (v, &y) in vs.iter().zip(&ys) {
        // The fused round leaves an update pending; same predictions as two passes.
        assert_eq!(a.predict_learn(v, y), two_pass.predict_learn_two_pass(v, y));
    }
    // Reference: the dense inverse of A = lam I + sum v v^T.
    let mut m = DMatrix::<f64>::identity(r, r) * 0.8;
    for v in &vs {
        let vv = DVector::from_column_slice(v);
        m += &vv * vv.transpose();
    }
    let inv = m.cholesky().unwrap().inverse();
    let ours = DMatrix::from_row_slice(r, r, &a.ainv_dense());
    assert!((&ours - &inv).norm() < 1e-12 * inv.norm());
    let bytes = bincode::serialize(&a).unwrap();
    let back: LinearAwv = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back.ainv_packed(), a.ainv_packed());
    assert_eq!(back.weights(), a.weights());
    let v = &vs[3];
    assert_eq!(back.predict(v), a.predict(v));
    let mut c = a.clone();
    assert_eq!(c.predict_learn(v, 0.1), a.clone().predict_learn_two_pass(v, 0.1));
    let mut many = Vec::new();
    a.predict_many(&vs.concat(), &mut many);
    for (v, p) in vs.iter().zip(&many) {
        let q = a.predict(v);
        assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()));
    }
    // A truncated triangle is refused before the dense array is allocated.
    let mut bad = bytes.clone();
    bad[..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(bincode::deserialize::<LinearAwv>(&bad).is_err());
    let _ = c.predict_learn(v, 0.2);
}

#[test]
fn discounted_round_in_one_pass_is_bitwise_the_three_passes() {
    // The discounted single round folds the pending update, the discount step and the
    // mat-vec into one pass; the two-pass reference runs them apart (flush, discount,
    // mat-vec, update). Orders around and across the 4-column groups and the panels.
    for (r, gamma) in [(1, 0.9), (7, 0.99), (9, 0.999), (130, 0.95), (133, 0.99)] {
        let (vs, ys) = random_stream(3 * r + 40, r, 5 + r as u64);
        let mut a = LinearAwv::new(r, 0.3, false).unwrap().with_gamma(gamma).unwrap();
        let mut b = a.clone();
        for (v, &y) in vs.iter().zip(&ys) {
            let (p, q) = (a.predict_learn(v, y), b.predict_learn_two_pass(v, y));
            assert_eq!(p.to_bits(), q.to_bits(), "r = {r}, gamma = {gamma}");
        }
        assert_eq!(a.ainv_packed(), b.ainv_packed());
        assert_eq!(a.b(), b.b());
    }
}
