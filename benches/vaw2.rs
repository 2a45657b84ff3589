//! Criterion benchmarks of the VAW2 paper's algorithms.
//! Target: one MultiKernelAWV round with the 76-kernel grid and m = 50 <= 60 microseconds.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kernelstream::aggregation::{
    AggregatingAlgorithm, Aggregator, AnyAggregator, Boa, Ewa, MlPoly, MlProd, RuleParams, VawMeta,
};
use kernelstream::features::{FeatureMap, RandomFourier, RffVariant};
use kernelstream::kernels::Kernel;
use kernelstream::learners::{MultiKernelAwv, OnlineLearner, Raker};
use kernelstream::rng::Rng;
use std::hint::black_box;

/// The paper's 76 kernels (sec. 4): 51 Gaussian, sigma^2 = 10^(2i/25-2); 25 Laplacian, sigma = 10^(i/6-2).
fn vaw2_grid() -> Vec<Kernel> {
    let mut k: Vec<Kernel> = (0..51)
        .map(|i| Kernel::Gaussian { sigma: 10f64.powf(2.0 * i as f64 / 25.0 - 2.0).sqrt() })
        .collect();
    k.extend((0..25).map(|i| Kernel::Laplacian { sigma: 10f64.powf(i as f64 / 6.0 - 2.0) }));
    k
}

fn inputs(d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Rng::new(seed);
    (0..64)
        .map(|_| (0..d).map(|_| (2.0 * rng.uniform() - 1.0) / (d as f64).sqrt()).collect())
        .collect()
}

fn bench_rff(c: &mut Criterion) {
    let mut g = c.benchmark_group("rff_map_m50");
    for &(d, variant) in &[
        (1usize, RffVariant::Cos),
        (5, RffVariant::Cos),
        (5, RffVariant::CosSin),
        (21, RffVariant::Cos),
    ] {
        let mut rng = Rng::new(1);
        let f = RandomFourier::draw(&Kernel::Gaussian { sigma: 1.0 }, d, 50, variant, &mut rng)
            .unwrap();
        let xs = inputs(d, 2);
        let mut out = vec![0.0; f.dim()];
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new(variant.name(), d), &d, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                f.map_into(black_box(&xs[i]), &mut out);
                black_box(out[0])
            })
        });
    }
    g.finish();
}

fn bench_multi_kernel(c: &mut Criterion) {
    let mut g = c.benchmark_group("multi_kernel_awv_round_76x50");
    for &(d, name) in &[(1usize, "vaw"), (5, "vaw"), (5, "mlprod"), (16, "vaw")] {
        let clip = if name == "vaw" { None } else { Some((0.0, 1.0)) };
        let mut l = MultiKernelAwv::new(
            &kernelstream::learners::MultiKernelAwvParams {
                kernels: vaw2_grid(),
                n_features: 50,
                lam: 1.0,
                features: RffVariant::Cos,
                ridge: false,
                clip,
                seed: 0,
                ..Default::default()
            }
            .with_rule(name, RuleParams::default()),
        )
        .unwrap();
        let xs = inputs(d, 3);
        for x in &xs {
            l.learn(x, 0.4).unwrap();
        }
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new(name, d), &d, |b, _| {
            b.iter(|| {
                i = (i + 1) % xs.len();
                black_box(l.predict_learn(black_box(&xs[i]), 0.3 + 0.001 * i as f64).unwrap())
            })
        });
    }
    let mut r = Raker::new(&kernelstream::learners::RakerParams {
        kernels: vaw2_grid(),
        n_features: 50,
        lr: 0.1,
        reg: 1e-3,
        seed: 0,
    })
    .unwrap();
    let xs = inputs(5, 4);
    let mut i = 0usize;
    g.bench_function("raker_d5", |b| {
        b.iter(|| {
            i = (i + 1) % xs.len();
            black_box(r.predict_learn(black_box(&xs[i]), 0.3).unwrap())
        })
    });
    g.finish();
}

fn bench_aggregators(c: &mut Criterion) {
    let mut g = c.benchmark_group("aggregator_round_n76");
    let n = 76;
    let mut rng = Rng::new(5);
    let zs: Vec<Vec<f64>> = (0..64).map(|_| (0..n).map(|_| rng.uniform()).collect()).collect();
    let rules: Vec<(&str, AnyAggregator)> = vec![
        ("vaw", AnyAggregator::Vaw(VawMeta::new(n, 1.0, false).unwrap())),
        ("ewa", AnyAggregator::Ewa(Ewa::new(n, 0.5).unwrap())),
        ("aa", AnyAggregator::Aa(AggregatingAlgorithm::new(n, 0.0, 1.0).unwrap())),
        ("boa", AnyAggregator::Boa(Boa::new(n, true).unwrap())),
        ("mlpoly", AnyAggregator::MlPoly(MlPoly::new(n, true).unwrap())),
        ("mlprod", AnyAggregator::MlProd(MlProd::new(n, true).unwrap())),
    ];
    for (name, mut agg) in rules {
        let mut i = 0usize;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % zs.len();
                black_box(agg.predict_update(black_box(&zs[i]), 0.5))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_rff, bench_multi_kernel, bench_aggregators);
criterion_main!(benches);
