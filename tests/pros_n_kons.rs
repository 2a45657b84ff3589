//! PROS-N-KONS identities in Rust (PROS-N-KONS paper, sec. 3 and Figure 1, sec. 5):
//! reset semantics, label independence of the dictionary, B-KONS == PROS-N-KONS below
//! the budget, predictions bounded by C, rank-one embedding on a duplicate stream.
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    Loss, OnGrowth, OnlineLearner, ProsNKons, ProsNKonsParams, ResetTiming, Transport,
};
use kernelstream::rng::Rng;
use kernelstream::samplers::KorsWeights;

fn params(loss: Loss, on_growth: OnGrowth, budget: Option<usize>, seed: u64) -> ProsNKonsParams {
    ProsNKonsParams {
        kernel: Kernel::Gaussian { sigma: 0.6 },
        alpha: 1.0,
        gamma: 0.05,
        eps: 0.5,
        beta: 1.0,
        c: 1.0,
        curvature: None,
        eta: 1.0,
        loss,
        on_growth,
        budget,
        reset_timing: ResetTiming::SameRound,
        transport: Transport::Literal,
        kors_weights: KorsWeights::Sqrt,
        seed,
    }
}

fn stream(n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut r = Rng::new(seed);
    let xs: Vec<Vec<f64>> = (0..n).map(|_| (0..3).map(|_| r.uniform()).collect()).collect();
    let ys = xs.iter().map(|x| 0.5 + 0.4 * (5.0 * x[0]).sin()).collect();
    (xs, ys)
}

#[test]
fn reset_rounds_predict_zero_and_resets_equal_dictionary_size() {
    let (xs, ys) = stream(400, 1);
    let mut m = ProsNKons::new(&params(Loss::Squared, OnGrowth::Restart, None, 3)).unwrap();
    for (x, &y) in xs.iter().zip(&ys) {
        let j = m.dictionary_size();
        let p = m.predict_learn(x, y).unwrap();
        assert!(p.abs() <= 1.0);
        if m.dictionary_size() > j {
            assert_eq!(p, 0.0);
        }
    }
    assert!(m.dictionary_size() > 3);
    assert_eq!(m.n_resets() as usize, m.dictionary_size());
}

#[test]
fn dictionary_is_label_independent_and_bkons_matches_below_budget() {
    let (xs, ys) = stream(400, 2);
    let mut a = ProsNKons::new(&params(Loss::Squared, OnGrowth::Restart, None, 9)).unwrap();
    let mut b = ProsNKons::new(&params(Loss::Hinge, OnGrowth::Continue, None, 9)).unwrap();
    let mut c = ProsNKons::new(&params(Loss::Squared, OnGrowth::Restart, Some(5), 9)).unwrap();
    let mut same = true;
    for (x, &y) in xs.iter().zip(&ys) {
        let pa = a.predict_learn(x, y).unwrap();
        b.predict_learn(x, if y > 0.5 { 1.0 } else { -1.0 }).unwrap();
        let pc = c.predict_learn(x, y).unwrap();
        if same {
            assert_eq!(pa.to_bits(), pc.to_bits());
        }
        same = c.dictionary_size() < 5;
    }
    assert_eq!(a.kors().indices(), b.kors().indices());
    assert_eq!(a.kors().weights(), b.kors().weights());
    assert_eq!(c.dictionary_size(), 5);
    assert!(a.dictionary_size() > 5);
}

#[test]
fn duplicate_stream_keeps_rank_one() {
    let mut m = ProsNKons::new(&params(Loss::Squared, OnGrowth::Restart, None, 4)).unwrap();
    for _ in 0..2000 {
        let p = m.predict_learn(&[0.3, 0.1, 0.9], 0.7).unwrap();
        assert!(p.is_finite());
    }
    assert_eq!(m.dim(), 1);
    assert!(m.dictionary_size() > 5);
}

#[test]
fn eta_scales_the_pending_newton_step_and_is_validated() {
    // v = w - eta A^{-1} g: the gap w - v is eta times the gap at eta = 1 after one
    // identical round (same dictionary, same w and A before the first Newton step).
    let (xs, ys) = stream(200, 4);
    let mut gaps = Vec::new();
    for eta in [1.0, 0.3, 2.0] {
        let mut m = ProsNKons::new(&ProsNKonsParams {
            eta,
            ..params(Loss::Squared, OnGrowth::Restart, None, 7)
        })
        .unwrap();
        // Up to (and including) the first round with an embedding, nothing depends on eta.
        let mut t = 0;
        while m.dictionary_size() == 0 {
            m.predict_learn(&xs[t], ys[t]).unwrap();
            t += 1;
        }
        let gap: Vec<f64> = m.weights().iter().zip(m.newton_point()).map(|(w, v)| w - v).collect();
        gaps.push(gap);
    }
    for (k, eta) in [(1, 0.3), (2, 2.0)] {
        for (a, b) in gaps[k].iter().zip(&gaps[0]) {
            assert!((a - eta * b).abs() <= 1e-15 * (1.0 + b.abs()));
        }
    }
    assert!(gaps[0].iter().any(|g| g.abs() > 0.0));
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let p = ProsNKonsParams { eta: bad, ..params(Loss::Squared, OnGrowth::Restart, None, 7) };
        assert!(ProsNKons::new(&p).is_err());
    }
}
