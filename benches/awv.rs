//! Criterion benchmarks of the linear AWV engine and one TaylorAWV round.
//! Targets (issue 2): at r = 190 one TaylorAWV round <= 10 microseconds.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelstream::awv::LinearAwv;
use kernelstream::learners::{OnlineLearner, TaylorAwv};
use kernelstream::rng::Rng;
use std::hint::black_box;

fn bench_engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("awv_engine_round");
    for &r in &[45usize, 190, 495, 1001] {
        let mut rng = Rng::new(1);
        let vs: Vec<Vec<f64>> =
            (0..64).map(|_| (0..r).map(|_| rng.normal() / (r as f64).sqrt()).collect()).collect();
        let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(r), &r, |b, _| {
            b.iter(|| {
                i = (i + 1) % vs.len();
                black_box(eng.predict_learn(black_box(&vs[i]), 0.5))
            })
        });
    }
    g.finish();
}

fn bench_taylor(c: &mut Criterion) {
    let mut g = c.benchmark_group("taylor_awv_round");
    // (d, M) -> r: (8,2) -> 45, (18,2) -> 190, (8,4) -> 495, (10,4) -> 1001.
    for &(d, m) in &[(8usize, 2usize), (18, 2), (8, 4), (10, 4)] {
        let mut rng = Rng::new(2);
        let xs: Vec<Vec<f64>> =
            (0..64).map(|_| (0..d).map(|_| 2.0 * rng.uniform() - 1.0).collect()).collect();
        let mut l = TaylorAwv::new(1.0, m, 1.0, false).unwrap();
        l.learn(&xs[0], 0.1).unwrap();
        let r = l.dim();
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new(format!("d{d}_M{m}"), r), &r, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(l.predict_learn(black_box(&xs[i]), 0.3).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_engine, bench_taylor);
criterion_main!(benches);
