//! AutoKernel with `K` outputs (`kernelstream::multi`), its drift defaults on
//! (restarts, linear and discounted experts, the loss scale): equal to `K`
//! single-output AutoKernels on the columns to 1e-10 relative while no restart is
//! triggered, in single rounds and in blocks, with the warm-up's kernel ridge alone and
//! with its mix per column (`warm_neighbour_outputs`, the single-output `warm_neighbour`); an output added later is exactly one
//! with zero targets from the first round (through a restart as well); bad targets
//! are refused with the learner unchanged.
use kernelstream::learners::OnlineLearner;
use kernelstream::mixture::{AutoKernel, AutoKernelParams};
use kernelstream::multi::{stream as multi, MultiOutput};
use kernelstream::rng::Rng;
use kernelstream::stream;

mod common;
use common::{assert_rel, column};

const K: usize = 3;
const D: usize = 3;

/// `K` smooth targets on `D` inputs; from row `change` on, every target flips sign
/// and shifts (an abrupt change).
fn data(n: usize, seed: u64, change: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * D).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y = (0..n * K)
        .map(|i| {
            let (t, j) = (i / K, i % K);
            let f = (2.0 * x[t * D] + j as f64).sin() * x[t * D + 1] + 0.1 * rng.normal();
            let f = f * (1.0 + j as f64) + 3.0 * j as f64;
            if t >= change {
                5.0 - 4.0 * f
            } else {
                f
            }
        })
        .collect();
    (x, y)
}

fn fresh() -> AutoKernel {
    fresh_mixed(false)
}

/// `mix`: the warm-up's nearest-row mix, per column with `K` outputs
/// (`warm_neighbour_outputs`) and for one output (`warm_neighbour`; a single-output
/// learner has no use for the other flag).
fn fresh_mixed(mix: bool) -> AutoKernel {
    let p = AutoKernelParams {
        warmup: 30,
        threads: 1,
        warm_neighbour: mix,
        warm_neighbour_outputs: mix,
        // without the mix, `K` outputs warm up at the grid centre alone; a single
        // output mixes its `warm_widths` unless they are empty
        warm_widths: if mix { AutoKernelParams::default().warm_widths } else { Vec::new() },
        ..Default::default()
    };
    let a = AutoKernel::new(&p).unwrap();
    assert!(a.restart().is_some() && a.config().linear && !a.config().discounts.is_empty());
    a
}

#[test]
fn k_outputs_equal_k_autokernels() {
    let p0 = check_k_outputs(fresh_mixed(false), || fresh_mixed(false));
    let p1 = check_k_outputs(fresh_mixed(true), || fresh_mixed(true));
    // the mix changes the warm-up's predictions (rounds 1-29), not the rounds after it
    let differ = (K..29 * K).filter(|&i| (p0[i] - p1[i]).abs() > 1e-6).count();
    assert!(differ > 10, "the mix changed {differ} warm-up predictions");
    assert_rel(&p0[30 * K..], &p1[30 * K..], 1e-10, "after the warm-up");
}

/// `K` outputs of `batch` against `K` learners of `fresh` (the same configuration);
/// returns the progressive predictions of the `K` outputs.
fn check_k_outputs(mut batch: AutoKernel, fresh: impl Fn() -> AutoKernel) -> Vec<f64> {
    let n = 400;
    let (x, y) = data(n, 1, usize::MAX);
    let mut p = Vec::new();
    multi::progressive_predict_into(&mut batch, &x, n, D, &y, K, &mut p).unwrap();
    assert_eq!(batch.n_outputs(), Some(K));
    let mut rows = fresh();
    let mut q = Vec::new();
    for (xt, yt) in x.chunks_exact(D).zip(y.chunks_exact(K)) {
        rows.predict_learn_multi(xt, yt, &mut q).unwrap();
    }
    assert_rel(&q, &p, 1e-10, "rounds vs blocks");
    let mut many = Vec::new();
    multi::predict_many_into(&batch, &x[..10 * D], 10, D, &mut many).unwrap();
    for j in 0..K {
        let mut single = fresh();
        let s = stream::progressive_predict(&mut single, &x, n, D, &column(&y, j, K)).unwrap();
        assert_eq!(single.restart().unwrap().changes, 0, "no restart on this stream");
        assert_rel(&column(&p, j, K), &s, 1e-10, &format!("output {j}"));
        let m1 = stream::predict_many(&single, &x[..10 * D], 10, D).unwrap();
        assert_rel(&column(&many, j, K), &m1, 1e-10, &format!("predict_many {j}"));
        // the single-output rounds (not blocks) as well
        let mut one = fresh();
        let s1: Vec<f64> = x
            .chunks_exact(D)
            .zip(column(&y, j, K))
            .map(|(xt, yt)| one.predict_learn(xt, yt).unwrap())
            .collect();
        assert_rel(&column(&q, j, K), &s1, 1e-10, &format!("output {j}, rounds"));
    }
    // A pickled state goes on as the original.
    let mut back: AutoKernel = bincode::deserialize(&bincode::serialize(&batch).unwrap()).unwrap();
    let (x2, y2) = data(60, 5, usize::MAX);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    multi::progressive_predict_into(&mut batch, &x2, 60, D, &y2, K, &mut a).unwrap();
    multi::progressive_predict_into(&mut back, &x2, 60, D, &y2, K, &mut b).unwrap();
    assert_eq!(a, b);
    // and one pickled mid warm-up (its mixes included)
    let mut mid = fresh();
    multi::learn_many(&mut mid, &x[..15 * D], 15, D, &y[..15 * K], K).unwrap();
    let mut back: AutoKernel = bincode::deserialize(&bincode::serialize(&mid).unwrap()).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    multi::progressive_predict_into(&mut mid, &x[15 * D..], n - 15, D, &y[15 * K..], K, &mut a)
        .unwrap();
    multi::progressive_predict_into(&mut back, &x[15 * D..], n - 15, D, &y[15 * K..], K, &mut b)
        .unwrap();
    assert_eq!(a, b);
    assert_rel(&a, &p[15 * K..], 1e-10, "mid warm-up pickle vs the uninterrupted run");
    p
}

/// Outputs added after `t0` rounds equal outputs with zero targets until `t0`.
fn check_added(n: usize, t0: usize, change: usize, added: usize) -> AutoKernel {
    check_added_mixed(n, t0, change, added, true);
    check_added_mixed(n, t0, change, added, false)
}

fn check_added_mixed(n: usize, t0: usize, change: usize, added: usize, mix: bool) -> AutoKernel {
    let fresh = || fresh_mixed(mix);
    let (x, mut y) = data(n, 3, change);
    let k0 = K - added;
    for t in 0..t0 {
        y[t * K + k0..(t + 1) * K].fill(0.0);
    }
    let mut full = fresh();
    let mut want = Vec::new();
    multi::progressive_predict_into(&mut full, &x, n, D, &y, K, &mut want).unwrap();
    let mut late = fresh();
    let y0: Vec<f64> = y[..t0 * K].chunks_exact(K).flat_map(|r| r[..k0].to_vec()).collect();
    multi::learn_many(&mut late, &x[..t0 * D], t0, D, &y0, k0).unwrap();
    late.add_outputs(added).unwrap();
    assert_eq!(late.n_outputs(), Some(K));
    let mut got = Vec::new();
    multi::progressive_predict_into(&mut late, &x[t0 * D..], n - t0, D, &y[t0 * K..], K, &mut got)
        .unwrap();
    let what = format!("t0={t0} added={added} mix={mix}");
    assert_rel(&got, &want[t0 * K..], 1e-10, &what);
    assert_eq!(late.restart().unwrap().changes, full.restart().unwrap().changes, "{what}");
    full
}

#[test]
fn an_output_added_later_had_zero_targets_from_the_first_round() {
    check_added(200, 12, usize::MAX, 1); // during the warm-up
    check_added(200, 90, usize::MAX, 2); // after it (from K = 1)
                                         // Across a restart: the change is detected, a successor learns all K columns.
    let full = check_added(900, 500, 400, 1);
    assert!(full.restart().unwrap().changes > 0, "the change triggers a restart");
}

#[test]
fn bad_targets_are_refused_and_the_learner_is_unchanged() {
    let (x, y) = data(80, 2, usize::MAX);
    let mut a = fresh();
    assert!(a.add_outputs(1).is_err(), "K is unknown before the first round");
    multi::learn_many(&mut a, &x, 80, D, &y, K).unwrap();
    let before = bincode::serialize(&a).unwrap();
    assert!(multi::learn_one(&mut a, &x[..D], &y[..2]).is_err());
    assert!(multi::learn_one(&mut a, &x[..D], &[1.0, f64::NAN, 0.0]).is_err());
    assert!(multi::learn_one(&mut a, &x[..D], &[1.0, 1e300, 0.0]).is_err());
    assert!(multi::learn_many(&mut a, &x[..2 * D], 2, D, &y[..5], K).is_err());
    assert!(stream::learn_one(&mut a, &x[..D], 1.0).is_err(), "one target for K outputs");
    assert!(stream::predict_one(&a, &x[..D]).is_err());
    assert_eq!(bincode::serialize(&a).unwrap(), before);
    assert_eq!(a.n_seen(), 80);
}
