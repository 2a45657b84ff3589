//! Criterion benchmarks of NystromAWV's blocks of rounds, in one run so
//! that the ratios share the machine's load:
//! * `nystrom_factor_block`: the linear algebra of a block of 64 rounds on a factor
//!   of order m: one pass (multi-RHS forward solve + compact-WY QR of `[L^T; K]`)
//!   against the blocked solve followed by 64 Givens rank-one updates (on a copy,
//!   as a block that may be refused needs) and against 64 single rounds
//!   (`forward_solve2` + rank-one update each);
//! * `nystrom_single_round_parts`: `forward_solve2` and `rank_one_update` alone at
//!   m = 200 and 500 (the two halves of a serving round);
//! * `nystrom_awv_fixed`: whole rounds of NystromAWV on a fixed dictionary,
//!   `block_size = None` against `1`.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernelstream::__internal::linalg::cholesky::{BlockScratch, ColCholesky};
use kernelstream::kernels::Kernel;
use kernelstream::learners::NystromAwv;
use kernelstream::rng::Rng;
use kernelstream::stream;
use std::hint::black_box;
use std::time::Duration;

const B: usize = 64;

fn factor(m: usize) -> ColCholesky {
    // A = I + G G^T / m, well conditioned.
    let mut rng = Rng::new(1);
    let g: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
    let mut a = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let v = (0..m).map(|k| g[i * m + k] * g[j * m + k]).sum::<f64>() / m as f64;
            a[i * m + j] = v + if i == j { 1.0 } else { 0.0 };
            a[j * m + i] = a[i * m + j];
        }
    }
    ColCholesky::factor(&a, m).unwrap()
}

fn bench_factor_block(c: &mut Criterion) {
    let mut g = c.benchmark_group("nystrom_factor_block");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(B as u64));
    for &m in &[200usize, 500, 1000] {
        let l = factor(m);
        let mut rng = Rng::new(2);
        let k: Vec<f64> = (0..B * m).map(|_| rng.uniform() / (m as f64).sqrt()).collect();
        let q: Vec<f64> = (0..m).map(|_| rng.normal()).collect();
        let (kr, qr) = (&k, &q);
        let rhs0: Vec<f64> = (0..m)
            .flat_map(|j| (0..=B).map(move |i| if i < B { kr[i * m + j] } else { qr[j] }))
            .collect();
        let (mut sc, mut next, mut rhs) =
            (BlockScratch::default(), ColCholesky::new(), rhs0.clone());
        g.bench_with_input(BenchmarkId::new("one_pass_qr", m), &m, |b, _| {
            b.iter(|| {
                rhs.copy_from_slice(&rhs0);
                l.block_solve_update(&mut rhs, B + 1, &k, B, &mut sc, Some(&mut next));
                black_box(next.diag(0))
            })
        });
        let mut copy = l.clone();
        let mut x = vec![0.0; m];
        g.bench_with_input(BenchmarkId::new("solve_then_givens", m), &m, |b, _| {
            b.iter(|| {
                rhs.copy_from_slice(&rhs0);
                l.block_solve_update(&mut rhs, B + 1, &k, B, &mut sc, None);
                copy.clone_from(&l);
                for row in k.chunks_exact(m) {
                    x.copy_from_slice(row);
                    copy.rank_one_update(&mut x);
                }
                black_box(copy.diag(0))
            })
        });
        let mut single = l.clone();
        let (mut w, mut u) = (vec![0.0; m], vec![0.0; m]);
        g.bench_with_input(BenchmarkId::new("single_rounds", m), &m, |b, _| {
            b.iter(|| {
                for row in k.chunks_exact(m) {
                    w.copy_from_slice(row);
                    u.copy_from_slice(&q);
                    single.forward_solve2(&mut w, &mut u);
                    x.copy_from_slice(row);
                    single.rank_one_update(&mut x);
                }
                black_box(w[0] + u[0])
            })
        });
    }
    g.finish();
}

/// The two halves of a single round at order `m` (the serving path of a dictionary
/// expert: the solve before the label, the Givens update after it).
fn bench_single_round_parts(c: &mut Criterion) {
    let mut g = c.benchmark_group("nystrom_single_round_parts");
    g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_secs(1));
    for &m in &[200usize, 500] {
        let l = factor(m);
        let mut rng = Rng::new(4);
        let row: Vec<f64> = (0..m).map(|_| rng.uniform() / (m as f64).sqrt()).collect();
        let q: Vec<f64> = (0..m).map(|_| rng.normal()).collect();
        let (mut w, mut u, mut x) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
        g.bench_with_input(BenchmarkId::new("forward_solve2", m), &m, |b, _| {
            b.iter(|| {
                w.copy_from_slice(&row);
                u.copy_from_slice(&q);
                l.forward_solve2(&mut w, &mut u);
                black_box(w[m - 1] + u[m - 1])
            })
        });
        let mut copy = l.clone();
        g.bench_with_input(BenchmarkId::new("rank_one_update", m), &m, |b, _| {
            b.iter(|| {
                x.copy_from_slice(&row);
                copy.rank_one_update(&mut x);
                black_box(copy.diag(m - 1))
            })
        });
    }
    g.finish();
}

fn bench_learner(c: &mut Criterion) {
    let mut g = c.benchmark_group("nystrom_awv_fixed");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    let (d, n) = (8usize, 256usize);
    g.throughput(Throughput::Elements(n as u64));
    let mut rng = Rng::new(3);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> = (0..n).map(|i| (2.0 * x[i * d]).sin()).collect();
    for &m in &[200usize, 500, 1000] {
        let dict: Vec<f64> = (0..m * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
        for (name, bs) in [("block_size_auto", None), ("block_size_1", Some(1))] {
            let mut l =
                NystromAwv::with_dictionary(Kernel::Gaussian { sigma: 1.0 }, 1.0, &dict, d, false)
                    .unwrap()
                    .with_block_size(bs)
                    .unwrap();
            g.bench_with_input(BenchmarkId::new(name, m), &m, |b, _| {
                b.iter(|| black_box(stream::progressive_predict(&mut l, &x, n, d, &y).unwrap()))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_factor_block, bench_single_round_parts, bench_learner);
criterion_main!(benches);
