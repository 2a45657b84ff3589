//! Experts of a mixture that share work (NystromAWV experts on one fixed Gaussian
//! dictionary share their kernel rows, and so do those on one fixed Laplacian
//! dictionary, src/mixture/shared_features.rs) give, bit for bit, the predictions each
//! expert gives alone, for any number of threads.
mod common;

use common::{bits, data};
use kernelstream::aggregation::{AnyAggregator, Boa};
use kernelstream::kernels::Kernel;
use kernelstream::learners::{NystromAwv, OnlineLearner};
use kernelstream::mixture::{AnyLearner, Mixture, Trace, Traced};
use kernelstream::stream;

/// Nystrom experts: two widths x two ridges on dictionary `a`, one on dictionary `b`,
/// three Laplacian on `a` (two widths, shared) and one on `b` (not shared), and a
/// Taylor expert.
fn experts(a: &[f64], b: &[f64], d: usize) -> Vec<AnyLearner> {
    let nys = |k: Kernel, lam: f64, dict: &[f64]| {
        AnyLearner::NystromAwv(NystromAwv::with_dictionary(k, lam, dict, d, false).unwrap())
    };
    let g = |sigma: f64| Kernel::Gaussian { sigma };
    vec![
        nys(g(0.7), 0.01, a),
        AnyLearner::TaylorAwv(common::taylor(0.8, 3, 0.5, false)),
        nys(g(0.7), 0.1, a),
        nys(g(1.4), 0.01, a),
        nys(g(1.4), 0.1, b),
        nys(Kernel::Laplacian { sigma: 1.0 }, 0.1, a),
        nys(g(1.4), 0.1, a),
        nys(Kernel::Laplacian { sigma: 2.0 }, 0.1, a),
        nys(Kernel::Laplacian { sigma: 2.0 }, 0.1, b),
        nys(Kernel::Laplacian { sigma: 1.0 }, 0.01, a),
    ]
}

/// Expert predictions of a mixture of `experts` fed in calls of rows `0..1`, `1..300`,
/// `300..n` (blocks of several sizes, and a single row).
fn traced(experts: Vec<AnyLearner>, threads: usize, x: &[f64], d: usize, y: &[f64]) -> Vec<f64> {
    let k = experts.len();
    let mut mix = Mixture::new(experts, AnyAggregator::Boa(Boa::new(k, true).unwrap())).unwrap();
    mix.set_threads(threads).unwrap();
    let mut tr = Trace::default();
    let n = y.len();
    for (s, e) in [(0, 1), (1, 300), (300, n)] {
        mix.progressive_trace(&x[s * d..e * d], e - s, d, &y[s..e], &mut tr).unwrap();
    }
    tr.experts
}

#[test]
fn shared_kernel_rows_change_no_bit() {
    let (n, d) = (700, 4);
    let (x, y) = data(n, d, 5);
    let (a, _) = data(60, d, 6);
    let (b, _) = data(60, d, 7);
    // Each expert alone (a mixture of one shares nothing), with the same calls.
    let alone: Vec<Vec<f64>> =
        experts(&a, &b, d).into_iter().map(|e| traced(vec![e], 1, &x, d, &y)).collect();
    let k = alone.len();
    for threads in [1, 2, 3] {
        let z = traced(experts(&a, &b, d), threads, &x, d, &y);
        for (j, col) in alone.iter().enumerate() {
            let got: Vec<f64> = (0..n).map(|i| z[i * k + j]).collect();
            let differ = (0..n).filter(|&i| got[i].to_bits() != col[i].to_bits()).count();
            assert_eq!(differ, 0, "expert {j}, threads {threads}: {differ} rounds differ");
        }
    }
}

#[test]
fn a_shared_block_after_a_kept_prediction_is_the_same_round() {
    // The serving path keeps a prediction; a block on the same row then runs it fresh.
    let (n, d) = (200, 3);
    let (x, y) = data(n, d, 8);
    let (a, _) = data(40, d, 9);
    let make = || {
        let e = experts(&a, &a, d);
        let k = e.len();
        Mixture::new(e, AnyAggregator::Boa(Boa::new(k, true).unwrap())).unwrap()
    };
    let mut want = make();
    let w = stream::progressive_predict(&mut want, &x, n, d, &y).unwrap();
    let mut got = make();
    let p0 = got.predict_keep(&x[..d]).unwrap();
    assert_eq!(p0.to_bits(), w[0].to_bits());
    let g = stream::progressive_predict(&mut got, &x, n, d, &y).unwrap();
    assert_eq!(bits(&g), bits(&w));
}

#[test]
fn serving_rounds_on_shared_kernel_rows_equal_plain_rounds() {
    // predict_keep (the experts' kernel rows shared) then predict_learn, against
    // predict_learn alone (each expert computing its own rows).
    let (n, d) = (150, 4);
    let (x, y) = data(n, d, 10);
    let (a, _) = data(50, d, 11);
    let make = || {
        let e = experts(&a, &a, d);
        let k = e.len();
        Mixture::new(e, AnyAggregator::Boa(Boa::new(k, true).unwrap())).unwrap()
    };
    let (mut served, mut plain) = (make(), make());
    for (row, &yt) in x.chunks(d).zip(&y) {
        let p = served.predict_keep(row).unwrap();
        let q = served.predict_learn(row, yt).unwrap();
        let r = plain.predict_learn(row, yt).unwrap();
        assert_eq!((p.to_bits(), q.to_bits()), (r.to_bits(), r.to_bits()));
    }
}
