//! Criterion benchmarks of the online projection estimator (Zhang and Simon, Algorithm 2)
//! and of averaged kernel SGD. Targets: 10^6 rounds of Example 1 <= 5 s and of
//! Example 2 <= 30 s (whole streams: `kernelstream reproduce projection-fig3` and
//! `kernelstream bench`); here one steady-state round at fixed p and one column addition.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelstream::bases::Basis1D;
use kernelstream::kernels::Kernel;
use kernelstream::learners::{
    AveragedKernelSgd, OnlineLearner, OnlineProjection, ProjectionConfig,
};
use kernelstream::rng::Rng;
use std::hint::black_box;

fn config(basis: Basis1D, alpha: f64, c: f64) -> ProjectionConfig {
    ProjectionConfig {
        basis,
        alpha,
        c,
        prefix_degree: None,
        additive: false,
        pairs: false,
        refresh: true,
        tol: 1e-6,
    }
}

fn bench_round(c: &mut Criterion) {
    let mut g = c.benchmark_group("projection_round");
    // Example 2 schedule (c = 0.5, kappa = 3): p = 27 at n = 1e4, 58 at 1e5.
    for &n in &[10_000usize, 100_000] {
        let mut rng = Rng::new(1);
        let mut l = OnlineProjection::with_config(config(Basis1D::Sine, 1.0, 0.5)).unwrap();
        for _ in 0..n {
            let x = rng.uniform();
            l.learn(&[x], x.sin() + rng.normal()).unwrap();
        }
        let p = l.dim();
        let xs: Vec<f64> = (0..256).map(|_| rng.uniform()).collect();
        let mut i = 0usize;
        // steady state: the next switch-on is far (t_{N+1} - n >> iterations of one sample)
        g.bench_with_input(BenchmarkId::new("sine", p), &p, |b, _| {
            b.iter_batched(
                // one untimed round after the clone: the stored-data vectors grow (reallocate) there
                || {
                    let mut m = l.clone();
                    m.learn(&[0.5], 0.0).unwrap();
                    m
                },
                |mut m| {
                    for _ in 0..64 {
                        i = (i + 1) % xs.len();
                        black_box(m.predict_learn(black_box(&[xs[i]]), 0.3).unwrap());
                    }
                    m
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn bench_column_addition(c: &mut Criterion) {
    let mut g = c.benchmark_group("projection_add_column");
    g.sample_size(10);
    // Example 2 at n = t_59 - 1 = 102689: the next sample switches psi_59 on (O(n p) work).
    let mut rng = Rng::new(2);
    let mut l = OnlineProjection::with_config(config(Basis1D::Sine, 1.0, 0.5)).unwrap();
    let t = (0.5 * 59f64.powi(3)).floor() as usize;
    for _ in 0..t - 1 {
        let x = rng.uniform();
        l.learn(&[x], x.sin() + rng.normal()).unwrap();
    }
    let p = l.dim();
    g.bench_function(BenchmarkId::new("sine_n102689", p), |b| {
        b.iter_batched(
            || l.clone(),
            |mut m| {
                m.learn(&[0.4], 0.1).unwrap();
                assert_eq!(m.dim(), p + 1);
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn bench_sgd(c: &mut Criterion) {
    let mut g = c.benchmark_group("averaged_sgd_round");
    for &n in &[1_000usize, 10_000] {
        let mut rng = Rng::new(3);
        let mut l = AveragedKernelSgd::new(&kernelstream::learners::AveragedKernelSgdParams {
            kernel: Some(Kernel::Min),
            gamma0: 5.0,
            zeta: 0.5,
        })
        .unwrap();
        for _ in 0..n {
            let x = rng.uniform();
            l.learn(&[x], x.sin()).unwrap();
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| black_box(l.predict(black_box(&[0.37])).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_round, bench_column_addition, bench_sgd);
criterion_main!(benches);
