//! Multi-output learners (`kernelstream::multi`): each of TaylorAWV, RFFAWV,
//! NystromAWV (KORS dictionary with insertions, and a fixed one), KernelAWV, the
//! linear AWV (as AutoKernel's linear experts) and a
//! Mixture of them with `K` outputs equals `K` single-output learners run on the
//! columns of the targets, to 1e-10 relative, in single rounds and in blocks; an
//! output added later equals one with zero targets from the first round.
use kernelstream::aggregation::{AnyAggregator, Boa};
use kernelstream::features::rff::RffVariant;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    KernelAwv, KernelAwvParams, LinearAwvLearner, NystromAwv, NystromAwvParams, OnlineLearner,
    RffAwv, RffAwvParams, TaylorAwv, TaylorAwvParams,
};
use kernelstream::mixture::{AnyLearner, Mixture};
use kernelstream::multi::{stream as multi, MultiOutput};
use kernelstream::rng::Rng;
use kernelstream::stream;

mod common;
use common::{assert_rel, column};

const K: usize = 3;
const D: usize = 3;

fn data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * D).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y = (0..n * K)
        .map(|i| {
            let (t, j) = (i / K, i % K);
            (2.0 * x[t * D] + j as f64).sin() * x[t * D + 1] + 0.1 * rng.normal()
        })
        .collect();
    (x, y)
}

fn learners(block: Option<usize>) -> Vec<(&'static str, AnyLearner)> {
    let g = |s| Some(Kernel::Gaussian { sigma: s });
    let fixed: Vec<f64> = data(12, 7).0;
    let taylor = |ridge, gamma| TaylorAwvParams {
        sigma: 1.0,
        degree: 3,
        lam: 0.5,
        ridge,
        block_size: block,
        gamma,
    };
    let rff = RffAwvParams {
        kernel: g(0.7),
        n_features: 30,
        features: RffVariant::CosSin,
        seed: 3,
        block_size: block,
        gamma: 0.95,
        ..Default::default()
    };
    let nystrom = NystromAwvParams {
        kernel: g(0.6),
        lam: 0.5,
        seed: 2,
        block_size: block,
        ..Default::default()
    };
    let kernel = KernelAwvParams { kernel: g(0.9), lam: 0.5, max_size: 1000, ..Default::default() };
    vec![
        ("TaylorAWV", AnyLearner::TaylorAwv(TaylorAwv::new(&taylor(false, 1.0)).unwrap())),
        (
            "TaylorAWV-discounted-ridge",
            AnyLearner::TaylorAwv(TaylorAwv::new(&taylor(true, 0.97)).unwrap()),
        ),
        ("RFFAWV-discounted", AnyLearner::RffAwv(RffAwv::new(&rff).unwrap())),
        ("NystromAWV", AnyLearner::NystromAwv(NystromAwv::new(&nystrom).unwrap())),
        (
            "NystromAWV-fixed-ridge",
            AnyLearner::NystromAwv(
                NystromAwv::with_dictionary(g(0.8).unwrap(), 1.0, &fixed, D, true)
                    .unwrap()
                    .with_block_size(block)
                    .unwrap(),
            ),
        ),
        ("KernelAWV", AnyLearner::KernelAwv(KernelAwv::new(&kernel).unwrap())),
        ("LinearAWV", AnyLearner::Linear(LinearAwvLearner::new(1.0, true).unwrap())),
        (
            "LinearAWV-discounted",
            AnyLearner::Linear(LinearAwvLearner::new(1.0, true).unwrap().with_gamma(0.9).unwrap()),
        ),
    ]
}

fn mixture(block: Option<usize>) -> Mixture {
    let experts: Vec<AnyLearner> = learners(block).into_iter().map(|(_, l)| l).collect();
    let n = experts.len();
    Mixture::new(experts, AnyAggregator::Boa(Boa::new(n, true).unwrap())).unwrap()
}

/// `K` outputs against `K` single-output runs, all rows at once and row by row.
fn check<L: MultiOutput + Clone>(fresh: &L, what: &str) {
    let n = 150;
    let (x, y) = data(n, 1);
    let mut batch = fresh.clone();
    let mut p = Vec::new();
    multi::progressive_predict_into(&mut batch, &x, n, D, &y, K, &mut p).unwrap();
    assert_eq!(batch.n_outputs(), Some(K));
    let mut rows = fresh.clone();
    let mut q = Vec::new();
    for (xt, yt) in x.chunks_exact(D).zip(y.chunks_exact(K)) {
        rows.predict_learn_multi(xt, yt, &mut q).unwrap();
    }
    assert_rel(&q, &p, 1e-10, &format!("{what}: rounds vs batch"));
    let mut many = Vec::new();
    multi::predict_many_into(&batch, &x[..10 * D], 10, D, &mut many).unwrap();
    for j in 0..K {
        let mut single = fresh.clone();
        let s = stream::progressive_predict(&mut single, &x, n, D, &column(&y, j, K)).unwrap();
        assert_rel(&column(&p, j, K), &s, 1e-10, &format!("{what} output {j}"));
        let m1 = stream::predict_many(&single, &x[..10 * D], 10, D).unwrap();
        assert_rel(&column(&many, j, K), &m1, 1e-10, &format!("{what} predict_many {j}"));
    }
    // An output added after t0 rounds of zero targets for it.
    let t0 = 60;
    let mut y0 = y.clone();
    (0..t0).for_each(|t| y0[t * K + K - 1] = 0.0);
    let mut full = fresh.clone();
    let mut want = Vec::new();
    multi::progressive_predict_into(&mut full, &x, n, D, &y0, K, &mut want).unwrap();
    let mut late = fresh.clone();
    let y2: Vec<f64> = y0[..t0 * K].chunks_exact(K).flat_map(|r| r[..K - 1].to_vec()).collect();
    multi::learn_many(&mut late, &x[..t0 * D], t0, D, &y2, K - 1).unwrap();
    late.add_outputs(1).unwrap();
    let mut got = Vec::new();
    multi::progressive_predict_into(&mut late, &x[t0 * D..], n - t0, D, &y0[t0 * K..], K, &mut got)
        .unwrap();
    assert_rel(&got, &want[t0 * K..], 1e-10, &format!("{what}: an output added later"));
}

#[test]
fn every_learner_with_k_outputs_equals_k_learners() {
    for block in [Some(1), Some(8), None] {
        for (name, l) in learners(block) {
            check(&l, &format!("{name} block={block:?}"));
        }
    }
}

#[test]
fn a_mixture_with_k_outputs_equals_k_mixtures() {
    for block in [Some(1), Some(8)] {
        check(&mixture(block), &format!("Mixture block={block:?}"));
    }
    // Each output's rule has its own loss scale.
    check(&mixture(Some(8)).with_loss_scale(40).unwrap(), "Mixture with a loss scale");
}

#[test]
fn the_single_output_protocol_refuses_k_outputs_and_k_is_fixed() {
    let (x, y) = data(10, 2);
    let mut l = TaylorAwv::new(&TaylorAwvParams::default()).unwrap();
    assert!(l.add_outputs(1).is_err(), "K is unknown before the first round");
    multi::learn_many(&mut l, &x, 10, D, &y, K).unwrap();
    let before = bincode::serialize(&l).unwrap();
    assert!(stream::learn_one(&mut l, &x[..D], 1.0).is_err());
    assert!(stream::predict_one(&l, &x[..D]).is_err());
    assert!(multi::learn_one(&mut l, &x[..D], &y[..2]).is_err());
    assert!(multi::learn_one(&mut l, &x[..D], &[1.0, f64::NAN, 0.0]).is_err());
    assert_eq!(bincode::serialize(&l).unwrap(), before);
    assert_eq!(l.n_seen(), 10);
}
