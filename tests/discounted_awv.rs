//! Discounted linear AWV (forgetting factor `gamma`, docs/choices.md "Discounted AWV"):
//! `A_t = gamma A_{t-1} + c e_k e_k^T + v_t v_t^T`, `c = lam (1 - gamma^r)`,
//! `b_t = gamma b_{t-1} + y_t v_t`. Checked against the dense recursion solved
//! directly, between single rounds and blocks, and over 10^6 rounds whose inputs
//! span a 3-dimensional subspace (the case where a discounted regulariser winds up).
use kernelstream::awv::LinearAwv;
use kernelstream::rng::Rng;
use nalgebra::{DMatrix, DVector};

fn stream(n: usize, r: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let vs: Vec<Vec<f64>> =
        (0..n).map(|_| (0..r).map(|_| rng.normal() / (r as f64).sqrt()).collect()).collect();
    // A target that switches its weight vector halfway.
    let ys = vs
        .iter()
        .enumerate()
        .map(|(t, v)| {
            let s = if t < n / 2 { 1.0 } else { -1.0 };
            s * v.iter().enumerate().map(|(i, x)| x * (i as f64 + 1.0)).sum::<f64>()
                + 0.1 * rng.normal()
        })
        .collect();
    (vs, ys)
}

/// The discounted problem solved directly each round (dense `A_t` and `b_t`
/// from their definition, then a linear solve).
fn dense_reference(vs: &[Vec<f64>], ys: &[f64], lam: f64, gamma: f64, ridge: bool) -> Vec<f64> {
    let r = vs[0].len();
    let c = lam * (1.0 - gamma.powi(r as i32));
    let mut a = DMatrix::<f64>::identity(r, r) * lam;
    let mut b = DVector::<f64>::zeros(r);
    let mut out = Vec::new();
    for (t, (v, &y)) in vs.iter().zip(ys).enumerate() {
        a *= gamma;
        a[(t % r, t % r)] += c;
        b *= gamma;
        let vv = DVector::from_column_slice(v);
        let m = if ridge { a.clone() } else { &a + &vv * vv.transpose() };
        let w = m.lu().solve(&b).unwrap();
        out.push(vv.dot(&w));
        a += &vv * vv.transpose();
        b += &vv * y;
    }
    out
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
}

#[test]
fn single_and_blocked_rounds_equal_the_direct_solution() {
    let (n, r) = (3000, 12);
    let (vs, ys) = stream(n, r, 5);
    for ridge in [false, true] {
        for gamma in [0.9, 0.99, 0.999] {
            let reference = dense_reference(&vs, &ys, 0.5, gamma, ridge);
            let mut single = LinearAwv::new(r, 0.5, ridge).unwrap().with_gamma(gamma).unwrap();
            let mut pure = Vec::new();
            let got: Vec<f64> = vs
                .iter()
                .zip(&ys)
                .map(|(v, &y)| {
                    pure.push(single.predict(v));
                    single.predict_learn(v, y)
                })
                .collect();
            assert!(max_rel(&got, &reference) < 1e-10, "single gamma={gamma} ridge={ridge}");
            let e = max_rel(&pure, &got);
            assert!(e < 1e-10, "predict gamma={gamma}: {e}");
            let mut blocked = LinearAwv::new(r, 0.5, ridge).unwrap().with_gamma(gamma).unwrap();
            let flat: Vec<f64> = vs.concat();
            let mut out = Vec::new();
            let mut ran_blocked = 0;
            for (xc, yc) in flat.chunks(32 * r).zip(ys.chunks(32)) {
                ran_blocked += blocked.predict_learn_block(xc, yc, &mut out) as usize;
            }
            assert!(ran_blocked > n / 32 / 2, "gamma={gamma}: only {ran_blocked} blocks ran");
            assert!(max_rel(&out, &reference) < 1e-10, "blocked gamma={gamma} ridge={ridge}");
            assert!(max_rel(&blocked.ainv_dense(), &single.ainv_dense()) < 1e-10);
            assert!(max_rel(blocked.b(), single.b()) < 1e-10);
            assert_eq!(blocked.n_seen(), n as u64);
        }
    }
}

#[test]
fn gamma_one_is_the_undiscounted_engine_bit_for_bit() {
    let (vs, ys) = stream(500, 9, 2);
    let mut a = LinearAwv::new(9, 1.0, false).unwrap();
    let mut b = LinearAwv::new(9, 1.0, false).unwrap().with_gamma(1.0).unwrap();
    for (v, &y) in vs.iter().zip(&ys) {
        assert_eq!(a.predict_learn(v, y).to_bits(), b.predict_learn(v, y).to_bits());
    }
    assert_eq!(a.ainv_packed(), b.ainv_packed());
}

#[test]
fn bad_gamma_is_refused() {
    for g in [0.0, -0.5, 1.0 + 1e-12, f64::NAN, f64::INFINITY] {
        assert!(LinearAwv::new(3, 1.0, false).unwrap().with_gamma(g).is_err(), "{g}");
    }
}

#[test]
fn state_round_trip_keeps_gamma() {
    let (vs, ys) = stream(100, 5, 4);
    let mut a = LinearAwv::new(5, 1.0, false).unwrap().with_gamma(0.95).unwrap();
    for (v, &y) in vs.iter().zip(&ys) {
        a.predict_learn(v, y);
    }
    let mut back: LinearAwv = bincode::deserialize(&bincode::serialize(&a).unwrap()).unwrap();
    assert_eq!(back.gamma(), 0.95);
    for (v, &y) in vs.iter().zip(&ys) {
        assert_eq!(a.predict_learn(v, y).to_bits(), back.predict_learn(v, y).to_bits());
    }
}

/// 10^6 rounds, inputs in a 3-dimensional subspace of R^24, gamma = 0.99: the
/// fully discounted form `gamma^t lam I` would leave `A^{-1}` growing as
/// `0.99^{-t}` on the 21 unexcited directions (overflow after about 70,000
/// rounds). Here every entry stays finite, `A^{-1} <= I / (lam gamma^(r-1))`,
/// and `A^{-1}` is still the inverse of the dense recursion's `A`.
#[test]
fn a_million_rounds_in_a_subspace_stay_bounded() {
    let (r, q, lam, gamma) = (24, 3, 1.0, 0.99);
    let mut rng = Rng::new(9);
    let basis: Vec<Vec<f64>> = (0..q).map(|_| (0..r).map(|_| rng.normal()).collect()).collect();
    let mut e = LinearAwv::new(r, lam, false).unwrap().with_gamma(gamma).unwrap();
    let c = lam * (1.0 - gamma.powi(r as i32));
    let mut a = DMatrix::<f64>::identity(r, r) * lam;
    let mut v = vec![0.0; r];
    let bound = 1.0 / (lam * gamma.powi(r as i32 - 1));
    for t in 0..1_000_000usize {
        let z: Vec<f64> = (0..q).map(|_| rng.normal()).collect();
        for (i, vi) in v.iter_mut().enumerate() {
            *vi = (0..q).map(|j| z[j] * basis[j][i]).sum::<f64>() / (r as f64).sqrt();
        }
        let y = z[0] + 0.1 * rng.normal();
        let p = e.predict_learn(&v, y);
        assert!(p.is_finite(), "round {t}: prediction {p}");
        a *= gamma;
        a[(t % r, t % r)] += c;
        let vv = DVector::from_column_slice(&v);
        a += &vv * vv.transpose();
        if t % 100_000 == 99_999 {
            let ainv = DMatrix::from_row_slice(r, r, &e.ainv_dense());
            assert!(ainv.iter().all(|x| x.is_finite()));
            let top = ainv.clone().symmetric_eigenvalues().max();
            assert!(top <= bound * (1.0 + 1e-9), "round {t}: ||A^-1|| = {top} > {bound}");
            let err = (&ainv * &a - DMatrix::<f64>::identity(r, r)).abs().max();
            assert!(err < 1e-8, "round {t}: |A^-1 A - I| = {err}");
        }
    }
}

/// The predict-then-learn cache of a discounted engine: `predict_keep` gives the
/// pure prediction bit for bit (the pending update applied to the store in its
/// mat-vec), `learn_kept` plays the whole round; the state stays that of plain rounds.
#[test]
fn a_discounted_engine_keeps_the_pure_prediction() {
    let (vs, ys) = stream(50, 6, 8);
    let mut a = LinearAwv::new(6, 1.0, false).unwrap().with_gamma(0.9).unwrap();
    let mut b = a.clone();
    for (t, (v, &y)) in vs.iter().zip(&ys).enumerate() {
        let pure = b.predict(v);
        let p = a.predict_keep(v);
        assert_eq!(p.to_bits(), pure.to_bits(), "round {t}");
        // A pure prediction after the kept one (the update now in the store): the same bits.
        let w = &vs[(t + 3) % vs.len()];
        assert_eq!(a.predict(w).to_bits(), b.predict(w).to_bits(), "round {t}");
        let q = if t % 5 == 4 {
            // Not kept for this input's round: declined, the caller plays it.
            a.predict_keep(&vs[0]);
            a.predict_learn(v, y)
        } else {
            a.learn_kept(v, y).unwrap()
        };
        let want = b.predict_learn(v, y);
        assert_eq!(q.to_bits(), want.to_bits(), "round {t}");
        // predict() (pure) and the round compute in another order: rounding apart.
        assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{p} {q}");
        assert!(a.learn_kept(v, y).is_none(), "a kept prediction serves one round");
    }
    assert_eq!(a.ainv_packed(), b.ainv_packed());
    assert_eq!(a.b(), b.b());
}
