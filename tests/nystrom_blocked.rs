//! NystromAWV in blocks of rounds (PKAWV paper sec. 3.2, App. H.1; the blocks of
//! Algorithm 1 by Woodbury) against single rounds (`block_size = 1`): predictions and
//! state (`A = L L^T`, `q`, dictionary, repair counts) agree up to rounding over long
//! streams, in KORS mode and with a fixed dictionary, AWV and ridge, and on
//! near-singular features (repeated points), where ill-conditioned blocks run as
//! single rounds.
use kernelstream::kernels::Kernel;
use kernelstream::learners::{NystromAwv, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::samplers::KorsWeights;
use kernelstream::stream;

fn data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> =
        (0..n).map(|i| (3.0 * x[i * d]).sin() + 0.2 * (2.0 * rng.uniform() - 1.0)).collect();
    (x, y)
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |s, a| s.max(a.abs()))
}

/// Largest `|a - b|` relative to the largest `|a|`.
fn rel_gap(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let g = a.iter().zip(b).fold(0.0f64, |s, (p, q)| s.max((p - q).abs()));
    g / max_abs(a).max(f64::MIN_POSITIVE)
}

/// `A = L L^T` (dense row-major) of a learner.
fn gram(l: &NystromAwv) -> Vec<f64> {
    let m = l.size();
    let f = l.cholesky_dense();
    let mut a = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let v: f64 = (0..=j).map(|k| f[i * m + k] * f[j * m + k]).sum();
            a[i * m + j] = v;
            a[j * m + i] = v;
        }
    }
    a
}

/// The scale of a round's rounding error on `l`'s state before the round, with
/// `w = L^{-1} k_D(x)`, `u = L^{-1} q`: the prediction `w.u / (1 + w.w)` is a dot
/// product, whose error scales with `|w| |u|` (not `|w.u|`, which cancels), and a
/// relative perturbation `e` of `A` moves `k^T A^{-1} q` by up to
/// `e |A^{-1} k| ||A|| |A^{-1} q|` (`||A|| <= ||L||_F^2`): the state of two exact
/// methods differs by rounding (about 1e-14 relative here), so the predictions
/// differ by that times the second scale on ill-conditioned `A`.
fn error_scale(l: &NystromAwv, x: &[f64]) -> f64 {
    let m = l.size();
    let f = l.cholesky_dense();
    let fwd = |v: &[f64]| {
        let mut w = v.to_vec();
        for i in 0..m {
            let s: f64 = (0..i).map(|j| f[i * m + j] * w[j]).sum();
            w[i] = (w[i] - s) / f[i * m + i];
        }
        w
    };
    let back = |v: &[f64]| {
        let mut w = v.to_vec();
        for i in (0..m).rev() {
            let s: f64 = (i + 1..m).map(|j| f[j * m + i] * w[j]).sum();
            w[i] = (w[i] - s) / f[i * m + i];
        }
        w
    };
    let nrm = |v: &[f64]| v.iter().map(|t| t * t).sum::<f64>().sqrt();
    let d = x.len();
    let krow: Vec<f64> = l.centers().chunks_exact(d).map(|c| l.kernel().eval(x, c)).collect();
    let (w, u) = (fwd(&krow), fwd(l.q()));
    let norm_a: f64 = f.iter().map(|v| v * v).sum();
    let sens = nrm(&back(&w)) * nrm(&back(&u)) * norm_a * 1e-4;
    (nrm(&w) * nrm(&u)).max(sens)
}

/// Runs the stream through `single` round by round and through `blocked` in chunks
/// of the given lengths (cycled); asserts predictions equal to `tol` relative to
/// [`error_scale`] (or `|p|` if larger), the factor's `A = L L^T` and `q` to `tol`
/// relative, and the same dictionary, KORS draws and repair counts. Returns the
/// rounds `blocked` ran inside blocks.
fn compare(
    single: &mut NystromAwv,
    blocked: &mut NystromAwv,
    x: &[f64],
    y: &[f64],
    d: usize,
    chunks: &[usize],
    tol: f64,
) -> u64 {
    let n = y.len();
    let (mut t, mut c) = (0, 0);
    let mut pb = Vec::new();
    while t < n {
        let k = chunks[c % chunks.len()].min(n - t);
        let (xs, ys) = (&x[t * d..(t + k) * d], &y[t..t + k]);
        pb.extend(stream::progressive_predict(blocked, xs, k, d, ys).unwrap());
        t += k;
        c += 1;
    }
    // Rounds whose gap exceeds tol |p| are checked against the error scale of the
    // state before the round (a replay from the start).
    let start = single.clone();
    let (mut gp, mut gr, mut flagged) = (0.0f64, 0.0f64, Vec::new());
    for (t, (xt, &yt)) in x.chunks_exact(d).zip(y).enumerate() {
        let p = single.predict_learn(xt, yt).unwrap();
        let g = (p - pb[t]).abs();
        if g > 0.0 {
            gr = gr.max(g / p.abs());
        }
        if g > tol * p.abs() {
            flagged.push(t);
        }
    }
    let mut replay = start;
    let mut next = flagged.iter().peekable();
    for (t, (xt, &yt)) in x.chunks_exact(d).zip(y).enumerate() {
        let Some(&&f) = next.peek() else { break };
        if f == t {
            let s = error_scale(&replay, xt);
            let p = replay.predict_learn(xt, yt).unwrap();
            gp = gp.max((p - pb[t]).abs() / s.max(p.abs()));
            next.next();
        } else {
            replay.predict_learn(xt, yt).unwrap();
        }
    }
    let ga = rel_gap(&gram(single), &gram(blocked));
    let gq = rel_gap(single.q(), blocked.q());
    eprintln!(
        "m = {}, {} of {n} rounds blocked: predictions {gp:.1e} (/|p|: {gr:.1e}, {} rounds \
         over tol |p|), A {ga:.1e}, q {gq:.1e}",
        blocked.size(),
        blocked.blocked_rounds(),
        flagged.len()
    );
    assert!(gp <= tol && ga <= tol && gq <= tol, "gaps {gp:.2e} {ga:.2e} {gq:.2e}");
    assert_eq!(single.blocked_rounds(), 0);
    assert_eq!(single.n_seen(), blocked.n_seen());
    assert_eq!(single.stats(), blocked.stats());
    assert_eq!(single.centers(), blocked.centers());
    assert_eq!(single.center_rounds(), blocked.center_rounds());
    assert_eq!(single.kors().map(|k| k.size()), blocked.kors().map(|k| k.size()));
    assert_eq!(single.kors().map(|k| k.indices()), blocked.kors().map(|k| k.indices()));
    blocked.blocked_rounds()
}

fn fixed(m: usize, d: usize, lam: f64, ridge: bool, bs: Option<usize>, seed: u64) -> NystromAwv {
    let (dict, _) = data(m, d, seed);
    NystromAwv::with_dictionary(Kernel::Gaussian { sigma: 0.7 }, lam, &dict, d, ridge)
        .unwrap()
        .with_block_size(bs)
        .unwrap()
}

#[test]
fn fixed_dictionary_blocks_equal_single_rounds_over_1e5_rounds() {
    let (n, d, m) = (100_000, 3, 60);
    let (x, y) = data(n, d, 11);
    for ridge in [false, true] {
        let mut a = fixed(m, d, 1.0, ridge, Some(1), 5);
        let mut b = fixed(m, d, 1.0, ridge, None, 5);
        let blocked = compare(&mut a, &mut b, &x, &y, d, &[20_000, 777, 3, 1], 1e-10);
        assert!(blocked > n as u64 * 9 / 10, "{blocked} rounds blocked");
    }
}

#[test]
fn fixed_dictionary_blocks_across_panels_and_ragged_sizes() {
    // m above several 32-column panels (m not a multiple of it), block sizes 2, 7 and 64.
    let (n, d, m) = (3000, 4, 101);
    let (x, y) = data(n, d, 12);
    for bs in [2, 7, 64] {
        let mut a = fixed(m, d, 0.5, false, Some(1), 6);
        let mut b = fixed(m, d, 0.5, false, Some(bs), 6);
        let blocked = compare(&mut a, &mut b, &x, &y, d, &[1000, 61], 1e-10);
        assert!(blocked > n as u64 * 9 / 10);
    }
}

#[test]
fn kors_blocks_between_insertions_equal_single_rounds_over_1e5_rounds() {
    // The dictionary grows by KORS (capped so the cache stays small); every insertion
    // ends a block. Same KORS draws, dictionary and repair counts as single rounds.
    let (n, d) = (100_000, 2);
    let (x, y) = data(n, d, 13);
    let k = Kernel::Gaussian { sigma: 0.5 };
    for ridge in [false, true] {
        let make = |bs| {
            let mut l = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
                kernel: Some(k),
                lam: 1.0,
                mu: 0.05,
                eps: 0.5,
                beta: 1.0,
                kors_weights: KorsWeights::Sqrt,
                seed: 3,
                ridge,
                ..Default::default()
            })
            .unwrap()
            .with_block_size(bs)
            .unwrap();
            l.set_kors_budget(Some(70));
            l
        };
        let (mut a, mut b) = (make(Some(1)), make(Some(32)));
        let blocked = compare(&mut a, &mut b, &x, &y, d, &[50_000, 10_001], 1e-10);
        assert!(b.stats().insertions >= 40, "{:?}", b.stats());
        assert!(blocked > n as u64 * 9 / 10, "{blocked} rounds blocked");
    }
}

#[test]
fn kors_early_rounds_insert_often() {
    // Small mu: KORS adds many points early, so blocks are short and insertions
    // interleave with them (including blocks cut after one row).
    let (n, d) = (1500, 3);
    let (x, y) = data(n, d, 14);
    let k = Kernel::Gaussian { sigma: 0.4 };
    for w in [KorsWeights::Sqrt, KorsWeights::Inverse] {
        let make = |bs| {
            NystromAwv::new(&kernelstream::learners::NystromAwvParams {
                kernel: Some(k),
                lam: 0.3,
                mu: 0.01,
                eps: 0.5,
                beta: 1.0,
                kors_weights: w,
                seed: 9,
                ridge: false,
                ..Default::default()
            })
            .unwrap()
            .with_block_size(bs)
            .unwrap()
        };
        let (mut a, mut b) = (make(Some(1)), make(Some(16)));
        let blocked = compare(&mut a, &mut b, &x, &y, d, &[n], 1e-10);
        assert!(blocked > 0);
    }
}

#[test]
fn near_singular_features_repeated_points() {
    // Each input repeated 5 times in a row, a dictionary holding duplicates (K_DD
    // singular: a jitter) and a tiny lam: blocks whose recursion is ill-conditioned
    // run as single rounds; the rest agree.
    let (n0, d, rep) = (2000, 2, 5);
    let (x0, y0) = data(n0, d, 15);
    let x: Vec<f64> = x0.chunks(d).flat_map(|r| r.repeat(rep)).collect();
    let y: Vec<f64> = y0.iter().flat_map(|&v| std::iter::repeat_n(v, rep)).collect();
    let (mut dict, _) = data(30, d, 16);
    dict.extend_from_within(..20 * d);
    for (lam, ridge) in [(1e-6, false), (1e-6, true), (1.0, false)] {
        let make = |bs| {
            NystromAwv::with_dictionary(Kernel::Gaussian { sigma: 0.3 }, lam, &dict, d, ridge)
                .unwrap()
                .with_block_size(bs)
                .unwrap()
        };
        let (mut a, mut b) = (make(Some(1)), make(Some(32)));
        assert!(a.stats().jitters > 0);
        let blocked = compare(&mut a, &mut b, &x, &y, d, &[y.len()], 1e-10);
        eprintln!("lam {lam} ridge {ridge}: {blocked} of {} rounds blocked", y.len());
    }
    // KORS mode on the repeated stream: KORS may pick a point twice; the forecaster
    // refuses the dependent column.
    let make = |bs| {
        NystromAwv::new(&kernelstream::learners::NystromAwvParams {
            kernel: Some(Kernel::Gaussian { sigma: 0.3 }),
            lam: 1e-4,
            mu: 1e-3,
            eps: 0.5,
            beta: 4.0,
            kors_weights: KorsWeights::Sqrt,
            seed: 2,
            ridge: false,
            ..Default::default()
        })
        .unwrap()
        .with_block_size(bs)
        .unwrap()
    };
    let (mut a, mut b) = (make(Some(1)), make(Some(32)));
    let n = 4000;
    compare(&mut a, &mut b, &x[..n * d], &y[..n], d, &[n], 1e-10);
}

#[test]
fn block_size_is_checked() {
    let l = fixed(5, 2, 1.0, false, None, 1);
    assert!(l.clone().with_block_size(Some(0)).is_err());
    assert!(l.clone().with_block_size(Some(1 << 20)).is_err());
    assert_eq!(l.block_size(500), kernelstream::learners::nystrom_auto_block_size(500));
}
