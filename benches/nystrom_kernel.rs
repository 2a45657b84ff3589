//! Criterion benchmarks of NystromAWV (PKAWV paper): a round without insertion at
//! m in {50, 200, 500} (at two stream lengths t, to show the cost does not depend
//! on t), a KORS step at the same m, and a KernelAWV round (its O(t^2) forward
//! substitution, i.e. `predict`) at t in {1000, 4000}.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelstream::kernels::Kernel;
use kernelstream::learners::{KernelAwv, NystromAwv, OnlineLearner};
use kernelstream::rng::Rng;
use kernelstream::samplers::{Kors, KorsWeights};
use std::hint::black_box;

const D: usize = 8;

fn points(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (0..D).map(|_| 2.0 * rng.uniform() - 1.0).collect()).collect()
}

/// A NystromAWV whose KORS dictionary holds exactly `m` points after `t` rounds
/// (every early point accepted with beta huge, then the dictionary capped at m).
fn nystrom_at(m: usize, t: usize) -> (NystromAwv, Vec<Vec<f64>>) {
    let k = Kernel::Gaussian { sigma: 1.0 };
    let mut l = NystromAwv::new(&kernelstream::learners::NystromAwvParams {
        kernel: Some(k),
        lam: 1.0,
        mu: 1.0,
        eps: 0.5,
        beta: 1e12,
        kors_weights: KorsWeights::Sqrt,
        seed: 1,
        ridge: false,
        ..Default::default()
    })
    .unwrap();
    l.set_kors_budget(Some(m));
    let xs = points(t, 2);
    for (i, x) in xs.iter().enumerate() {
        l.learn(x, (i as f64 * 0.37).sin()).unwrap();
    }
    assert_eq!(l.dim(), m);
    (l, points(64, 3))
}

fn bench_nystrom(c: &mut Criterion) {
    let mut g = c.benchmark_group("nystrom_awv_round_no_insertion");
    g.sample_size(20);
    for &m in &[50usize, 200, 500] {
        for &t in &[2 * m, 2 * m + 20_000] {
            let (mut l, xs) = nystrom_at(m, t);
            let mut i = 0usize;
            g.bench_with_input(BenchmarkId::new(format!("m{m}"), format!("t{t}")), &m, |b, _| {
                b.iter(|| {
                    i = (i + 1) % xs.len();
                    black_box(l.predict_learn(black_box(&xs[i]), 0.1).unwrap())
                })
            });
        }
    }
    g.finish();
}

fn bench_kors(c: &mut Criterion) {
    let mut g = c.benchmark_group("kors_step");
    let k = Kernel::Gaussian { sigma: 1.0 };
    for &m in &[50usize, 200, 500] {
        let mut kors = Kors::new(k, 1.0, 0.5, 1e12, KorsWeights::Sqrt, 1).unwrap();
        kors.set_budget(Some(m));
        for x in points(m, 4) {
            kors.step(&x).unwrap();
        }
        let xs = points(64, 5);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(m), &m, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(kors.step(black_box(&xs[i])).unwrap())
            })
        });
    }
    g.finish();
}

fn bench_kernel_awv(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel_awv_round");
    g.sample_size(20);
    let k = Kernel::Gaussian { sigma: 1.0 };
    for &t in &[1000usize, 4000] {
        let mut l = KernelAwv::new(&kernelstream::learners::KernelAwvParams {
            kernel: Some(k),
            lam: 1.0,
            ridge: false,
            max_size: 10_000,
        })
        .unwrap();
        let xs = points(t, 6);
        let x: Vec<f64> = xs.concat();
        let y: Vec<f64> = (0..t).map(|i| (i as f64 * 0.1).sin()).collect();
        kernelstream::stream::learn_many(&mut l, &x, t, D, &y).unwrap();
        let q = points(16, 7);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(t), &t, |b, _| {
            b.iter(|| {
                i = (i + 1) % q.len();
                black_box(l.predict(black_box(&q[i])).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_nystrom, bench_kors, bench_kernel_awv);
criterion_main!(benches);
