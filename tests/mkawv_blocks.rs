//! MultiKernelAWV on blocks of rounds (VAW2 paper sec. 3, the experts of Theorem 2
//! run as Woodbury blocks of the PKAWV paper's Algorithm 1 rounds): equal to the
//! round loop to 1e-10 relative over 10^5 rounds (AWV and ridge, VAW and BOA meta
//! rules), bit for bit with `block_size = 1` and for any number of threads.
use kernelstream::aggregation::{AnyAggregator, RuleParams};
use kernelstream::awv::LinearAwv;
use kernelstream::features::RffVariant;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{MultiKernelAwv, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::stream;

fn stream_of(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
    let y = x
        .chunks_exact(d)
        .map(|r| (3.0 * r[0]).sin() + r[1] * r[d - 1] + 0.1 * rng.normal())
        .collect();
    (x, y)
}

/// A meta rule: its name and parameters.
type Rule = (&'static str, RuleParams);

fn learner(n_kernels: usize, m: usize, ridge: bool, rule: Rule) -> MultiKernelAwv {
    let kernels = (0..n_kernels)
        .map(|j| {
            let sigma = 0.2 * 1.3f64.powi(j as i32);
            if j % 2 == 0 {
                Kernel::Gaussian { sigma }
            } else {
                Kernel::Laplacian { sigma }
            }
        })
        .collect();
    let clip = if rule.0 == "vaw" { None } else { Some((-2.0, 2.0)) };
    MultiKernelAwv::new(
        &kernelstream::learners::MultiKernelAwvParams {
            kernels,
            n_features: m,
            lam: 1.0,
            features: RffVariant::Cos,
            ridge,
            clip,
            seed: 7,
            ..Default::default()
        }
        .with_rule(rule.0, rule.1),
    )
    .unwrap()
}

/// `||a - b|| / ||a||` (Frobenius).
fn rel(a: &[f64], b: &[f64]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
    d / a.iter().map(|p| p * p).sum::<f64>().sqrt().max(f64::MIN_POSITIVE)
}

fn engine_gap(a: &LinearAwv, b: &LinearAwv) -> f64 {
    rel(&a.ainv_packed(), &b.ainv_packed()).max(rel(a.b(), b.b()))
}

/// Largest gap between the two learners' states: every expert's `A^{-1}` and `b`
/// and the meta rule's state (VAW: its engine's `A^{-1}` and `b`, not the weights
/// `A^{-1} b`, whose error grows with the condition number of the meta matrix,
/// about 1e5 for these strongly correlated experts; the other rules: their weights).
fn state_gap(a: &MultiKernelAwv, b: &MultiKernelAwv) -> f64 {
    let (ea, eb) = (a.experts().unwrap(), b.experts().unwrap());
    let g = ea.iter().zip(eb).map(|(p, q)| engine_gap(p, q)).fold(0.0, f64::max);
    match (a.meta(), b.meta()) {
        (Some(AnyAggregator::Vaw(p)), Some(AnyAggregator::Vaw(q))) => {
            g.max(engine_gap(p.engine(), q.engine()))
        }
        _ => g.max(rel(&a.weights().unwrap(), &b.weights().unwrap())),
    }
}

/// Prediction gap relative to `|p| + max |y|`: a prediction is a combination of
/// terms of the labels' size (`b = sum y v`), so the rounding of two summation
/// orders scales with the labels, not with `|p|` (which may be near 0).
fn pred_gap(p: &[f64], q: &[f64], y: &[f64]) -> f64 {
    let ymax = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    p.iter().zip(q).map(|(a, b)| (a - b).abs() / (ymax + a.abs())).fold(0.0, f64::max)
}

#[test]
fn blocks_equal_single_rounds_over_1e5_rounds() {
    let (n, d) = (100_000usize, 3usize);
    let (x, y) = stream_of(n, d, 5);
    for (ridge, rule) in [
        (false, ("vaw", RuleParams::default())),
        (true, ("vaw", RuleParams { ridge: true, ..RuleParams::default() })),
        (false, ("boa", RuleParams::default())),
        (true, ("mlpoly", RuleParams { gradient: false, ..RuleParams::default() })),
    ] {
        let mut single = learner(3, 24, ridge, rule).with_block_size(Some(1)).unwrap();
        let mut blocked = learner(3, 24, ridge, rule).with_block_size(Some(16)).unwrap();
        // In pieces, as evaluate.progressive feeds them (block boundaries move).
        let (mut p, mut q) = (Vec::new(), Vec::new());
        let mut t = 0;
        for len in [1usize, 999, 37_000, 62_000] {
            let (xs, ys) = (&x[t * d..(t + len) * d], &y[t..t + len]);
            p.extend(stream::progressive_predict(&mut single, xs, len, d, ys).unwrap());
            q.extend(stream::progressive_predict(&mut blocked, xs, len, d, ys).unwrap());
            t += len;
        }
        let (pg, sg) = (pred_gap(&p, &q, &y), state_gap(&single, &blocked));
        eprintln!("ridge {ridge} {rule:?}: prediction gap {pg:.2e}, state gap {sg:.2e}");
        assert!(pg < 1e-10 && sg < 1e-10, "{rule:?}: predictions {pg:e} state {sg:e}");
        assert_eq!(blocked.n_seen(), n as u64);
        // the blocked path ran: the states are not bit for bit those of single rounds
        assert!(sg > 0.0);
    }
}

#[test]
fn vaw_meta_level_blocks_equal_single_rounds() {
    // 160 kernels: the meta VAW runs blocks of its own engine too (auto_block_size(160) > 1).
    assert!(kernelstream::awv::auto_block_size(160) > 1);
    let (n, d) = (3000usize, 2usize);
    let (x, y) = stream_of(n, d, 8);
    for ridge in [false, true] {
        let rule = ("vaw", RuleParams { ridge, ..RuleParams::default() });
        let mut single = learner(160, 40, ridge, rule).with_block_size(Some(1)).unwrap();
        let mut blocked = learner(160, 40, ridge, rule).with_block_size(Some(16)).unwrap();
        let p = stream::progressive_predict(&mut single, &x, n, d, &y).unwrap();
        let q = stream::progressive_predict(&mut blocked, &x, n, d, &y).unwrap();
        let (pg, sg) = (pred_gap(&p, &q, &y), state_gap(&single, &blocked));
        eprintln!("160 kernels ridge {ridge}: prediction gap {pg:.2e}, state gap {sg:.2e}");
        assert!(pg < 1e-10 && sg < 1e-10, "predictions {pg:e} state {sg:e}");
    }
}

#[test]
fn block_size_one_is_the_round_loop_bit_for_bit() {
    let (n, d) = (700usize, 3usize);
    let (x, y) = stream_of(n, d, 2);
    for rule in [("vaw", RuleParams::default()), ("ewa", RuleParams::default())] {
        let mut looped = learner(4, 20, false, rule);
        let p: Vec<f64> = x
            .chunks_exact(d)
            .zip(&y)
            .map(|(r, &t)| {
                stream::validate(&looped, r, 1, d, Some(&[t])).unwrap();
                looped.predict_learn(r, t).unwrap()
            })
            .collect();
        let mut batch = learner(4, 20, false, rule).with_block_size(Some(1)).unwrap();
        let q = stream::progressive_predict(&mut batch, &x, n, d, &y).unwrap();
        assert_eq!(p, q);
        assert_eq!(bincode::serialize(&looped).unwrap(), bincode::serialize(&batch).unwrap());
        // progressive_experts: the raw expert rows of the same rounds
        let mut fresh = learner(4, 20, false, rule).with_block_size(Some(1)).unwrap();
        let z = fresh.progressive_experts(&x, n, d, &y).unwrap();
        assert_eq!(z.len(), n * 4);
        assert_eq!(bincode::serialize(&fresh).unwrap(), bincode::serialize(&batch).unwrap());
    }
}

#[test]
fn threads_do_not_change_a_bit() {
    let (n, d) = (900usize, 3usize);
    let (x, y) = stream_of(n, d, 3);
    for block in [Some(1), Some(16), None] {
        let run = |threads: usize| {
            let mut l = learner(6, 60, false, ("vaw", RuleParams::default()))
                .with_block_size(block)
                .unwrap()
                .with_threads(threads)
                .unwrap();
            let p = stream::progressive_predict(&mut l, &x, n, d, &y).unwrap();
            let z = l.progressive_experts(&x, n, d, &y).unwrap();
            let q = stream::predict_many(&l, &x[..300 * d], 300, d).unwrap();
            (p, z, q, bincode::serialize(&l).unwrap())
        };
        let one = run(1);
        for threads in [0, 2, 3] {
            assert!(one == run(threads), "block {block:?}: threads {threads} differ");
        }
    }
}

#[test]
fn predict_many_equals_predict() {
    let (n, d) = (500usize, 3usize);
    let (x, y) = stream_of(n, d, 4);
    for block in [Some(1), None] {
        let mut l =
            learner(3, 60, false, ("vaw", RuleParams::default())).with_block_size(block).unwrap();
        stream::learn_many(&mut l, &x[..400 * d], 400, d, &y[..400]).unwrap();
        let rows = &x[400 * d..];
        let many = stream::predict_many(&l, rows, 100, d).unwrap();
        let one: Vec<f64> = rows.chunks_exact(d).map(|r| l.predict(r).unwrap()).collect();
        if block == Some(1) {
            assert_eq!(many, one);
        } else {
            assert!(pred_gap(&one, &many, &y) < 1e-10);
        }
        assert_eq!(l.n_seen(), 400);
    }
}

#[test]
fn a_row_that_overflows_the_fresh_features_stops_after_the_rows_before_it() {
    // The first row draws the features; row 5 overflows their projections: rows
    // 0..5 are learned and the error returned, as single rounds would leave it.
    let (n, d) = (40usize, 3usize);
    let (mut x, y) = stream_of(n, d, 6);
    x[5 * d] = f64::MAX / 2.0;
    for block in [Some(1), Some(4)] {
        let mut l =
            learner(3, 20, false, ("vaw", RuleParams::default())).with_block_size(block).unwrap();
        let mut out = Vec::new();
        let err = stream::progressive_predict_into(&mut l, &x, n, d, &y, &mut out).unwrap_err();
        assert!(matches!(err, kernelstream::KsError::Numerical(_)), "{err:?}");
        assert_eq!((out.len(), l.n_seen()), (5, 5));
        let mut r =
            learner(3, 20, false, ("vaw", RuleParams::default())).with_block_size(block).unwrap();
        let p = stream::progressive_predict(&mut r, &x[..5 * d], 5, d, &y[..5]).unwrap();
        assert_eq!(p, out);
        assert_eq!(bincode::serialize(&l).unwrap(), bincode::serialize(&r).unwrap());
    }
}

#[test]
fn bad_block_size_and_threads_are_parameter_errors() {
    let l = || learner(2, 10, false, ("vaw", RuleParams::default()));
    for b in [0, kernelstream::awv::MAX_BLOCK_SIZE + 1] {
        assert!(matches!(l().with_block_size(Some(b)), Err(kernelstream::KsError::Parameter(_))));
    }
    let t = kernelstream::parallel::MAX_THREADS + 1;
    assert!(matches!(l().with_threads(t), Err(kernelstream::KsError::Parameter(_))));
}
