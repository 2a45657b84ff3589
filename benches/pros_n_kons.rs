//! Criterion benchmarks of one PROS-N-KONS round against the dictionary size j
//! (PROS-N-KONS paper, sec. 3 "Computational complexity": per-round cost O(j d + j^2) with
//! incremental updates, so at most quadratic in j), and of one FOGD / NOGD round.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    Fogd, Loss, Nogd, OnGrowth, OnlineLearner, ProsNKons, ProsNKonsParams, ResetTiming, Transport,
};
use kernelstream::rng::Rng;
use kernelstream::samplers::KorsWeights;
use std::hint::black_box;

fn params(gamma: f64, budget: Option<usize>) -> ProsNKonsParams {
    ProsNKonsParams {
        kernel: Kernel::Gaussian { sigma: 1.0 },
        alpha: 1.0,
        gamma,
        eps: 0.5,
        beta: 1.0,
        c: 1.0,
        curvature: None,
        eta: 1.0,
        loss: Loss::Squared,
        on_growth: OnGrowth::Restart,
        budget,
        reset_timing: ResetTiming::SameRound,
        transport: Transport::Literal,
        kors_weights: KorsWeights::Sqrt,
        seed: 0,
    }
}

fn points(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| (0..d).map(|_| r.uniform()).collect()).collect()
}

/// B-KONS at its budget J: the ONS round in a fixed rank-J embedding (no KORS).
fn bench_bkons(c: &mut Criterion) {
    let mut g = c.benchmark_group("bkons_round_at_budget");
    let xs = points(4096, 8, 1);
    for &j in &[25usize, 50, 100, 200, 400] {
        let mut m = ProsNKons::new(&params(1e-4, Some(j))).unwrap();
        let mut i = 0usize;
        while m.dictionary_size() < j {
            m.learn(&xs[i % xs.len()], 0.5).unwrap();
            i += 1;
        }
        g.bench_with_input(BenchmarkId::from_parameter(j), &j, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(m.predict_learn(black_box(&xs[i]), 0.3).unwrap())
            })
        });
    }
    g.finish();
}

/// PROS-N-KONS full round (KORS + embedding + ONS) once the dictionary has saturated at j.
fn bench_prosnkons(c: &mut Criterion) {
    let mut g = c.benchmark_group("prosnkons_round_with_kors");
    let xs = points(20000, 8, 2);
    for &gamma in &[3.0f64, 1.0, 0.3, 0.1] {
        let mut m = ProsNKons::new(&params(gamma, None)).unwrap();
        for x in &xs {
            m.learn(x, 0.5).unwrap();
        }
        let j = m.dictionary_size();
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new(format!("gamma{gamma}"), j), &j, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(m.predict_learn(black_box(&xs[i]), 0.3).unwrap())
            })
        });
    }
    g.finish();
}

fn bench_first_order(c: &mut Criterion) {
    let mut g = c.benchmark_group("first_order_round");
    let xs = points(1024, 9, 3);
    let k = Kernel::Gaussian { sigma: 8.0 };
    let mut f = Fogd::new(&kernelstream::learners::FogdParams {
        kernel: Some(k),
        n_features: 450,
        lr: 0.135,
        loss: Loss::Squared,
        epsilon: 0.0,
        seed: 0,
    })
    .unwrap();
    let mut n = Nogd::new(&kernelstream::learners::NogdParams {
        kernel: Some(k),
        budget: 30,
        rank: Some(6),
        lr: 0.05,
        loss: Loss::Squared,
        epsilon: 0.0,
    })
    .unwrap();
    for x in &xs {
        f.learn(x, 0.5).unwrap();
        n.learn(x, 0.5).unwrap();
    }
    let mut i = 0usize;
    g.bench_function("fogd_D450_d9", |b| {
        b.iter(|| {
            i = (i + 1) % xs.len();
            black_box(f.predict_learn(black_box(&xs[i]), 0.3).unwrap())
        })
    });
    g.bench_function("nogd_B30_k6_d9", |b| {
        b.iter(|| {
            i = (i + 1) % xs.len();
            black_box(n.predict_learn(black_box(&xs[i]), 0.3).unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, bench_bkons, bench_prosnkons, bench_first_order);
criterion_main!(benches);
