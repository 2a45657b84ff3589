//! Criterion benchmarks of the linear AWV engine and one TaylorAWV round.
//! Target: at r = 190 one TaylorAWV round <= 10 microseconds.
//! Single rounds (two passes, and one fused pass) against the two-pass round of
//! the engine before its rounds were fused (frozen below), and blocks of rounds (matrix-matrix products) against single
//! rounds, in one run so that the ratios share the machine's load.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernelstream::__internal::linalg::blas::{axpy, dot};
use kernelstream::__internal::linalg::packed;
use kernelstream::awv::LinearAwv;
use kernelstream::learners::{OnlineLearner, TaylorAwv};
use kernelstream::rng::Rng;
use std::hint::black_box;
use std::time::Duration;

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
        let mut l = TaylorAwv::new(&kernelstream::learners::TaylorAwvParams {
            sigma: 1.0,
            degree: m,
            lam: 1.0,
            ridge: false,
            ..Default::default()
        })
        .unwrap();
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

fn stream(r: usize, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(3);
    (0..n * r).map(|_| rng.normal() / (r as f64).sqrt()).collect()
}

/// The per-round kernels of the engine before the fused round, frozen here as
/// the baseline of the fused round's 1.4x target: packed triangle, one column at a time, four
/// partial sums per column; one symmetric mat-vec, then one rank-one update
/// (two passes over the triangle). Compiled per path and dispatched as the library's.
mod before {
    use kernelstream::__internal::simd::Isa;

    kernelstream::dispatch! {
        pub fn symv(a: &[f64], v: &[f64], h: &mut [f64]) => symv_impl, symv_on;
    }
    kernelstream::dispatch! {
        pub fn syr(a: &mut [f64], c: f64, h: &[f64]) => syr_impl, syr_on;
    }

    #[inline(always)]
    fn symv_impl<I: Isa>(a: &[f64], v: &[f64], h: &mut [f64]) {
        let r = v.len();
        h[..r].iter_mut().for_each(|x| *x = 0.0);
        for j in 0..r {
            let s = j * (j + 1) / 2;
            let (col, vj) = (&a[s..s + j], v[j]);
            let (head, rest) = h.split_at_mut(j);
            let mut acc = [0.0f64; 4];
            let cc = col.chunks_exact(4);
            let (ct, vt) = (cc.remainder(), v[..j].chunks_exact(4).remainder());
            let mut hc = head.chunks_exact_mut(4);
            for ((c4, v4), h4) in cc.zip(v[..j].chunks_exact(4)).zip(&mut hc) {
                for l in 0..4 {
                    h4[l] = I::mul_add(vj, c4[l], h4[l]);
                    acc[l] = I::mul_add(c4[l], v4[l], acc[l]);
                }
            }
            let mut tail = 0.0;
            for ((c, vi), hi) in ct.iter().zip(vt).zip(hc.into_remainder()) {
                *hi = I::mul_add(vj, *c, *hi);
                tail = I::mul_add(*c, *vi, tail);
            }
            rest[0] += I::mul_add(a[s + j], vj, ((acc[0] + acc[2]) + (acc[1] + acc[3])) + tail);
        }
    }

    #[inline(always)]
    fn syr_impl<I: Isa>(a: &mut [f64], c: f64, h: &[f64]) {
        for j in 0..h.len() {
            let s = j * (j + 1) / 2;
            let alpha = -c * h[j];
            for (y, x) in a[s..=s + j].iter_mut().zip(&h[..=j]) {
                *y = I::mul_add(alpha, *x, *y);
            }
        }
    }
}

fn two_pass_round(ainv: &mut [f64], b: &mut [f64], h: &mut [f64], v: &[f64], y: f64) -> f64 {
    before::symv(ainv, v, h);
    let delta = dot(v, h);
    let pred = dot(h, b) / (1.0 + delta);
    before::syr(ainv, 1.0 / (1.0 + delta), h);
    axpy(y, v, b);
    pred
}

fn bench_single_vs_two_pass(c: &mut Criterion) {
    let mut g = c.benchmark_group("awv_round_fused_vs_two_pass");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for &r in &[190usize, 495, 1001] {
        let xs = stream(r, 64);
        let mut ainv = packed::scaled_identity(r, 1.0);
        let (mut b, mut h) = (vec![0.0; r], vec![0.0; r]);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("two_pass_before", r), &r, |bch, _| {
            bch.iter(|| {
                i = (i + 1) % 64;
                black_box(two_pass_round(&mut ainv, &mut b, &mut h, &xs[i * r..(i + 1) * r], 0.5))
            })
        });
        let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
        g.bench_with_input(BenchmarkId::new("fused", r), &r, |bch, _| {
            bch.iter(|| {
                i = (i + 1) % 64;
                black_box(eng.predict_learn(&xs[i * r..(i + 1) * r], 0.5))
            })
        });
        let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
        g.bench_with_input(BenchmarkId::new("engine_two_pass", r), &r, |bch, _| {
            bch.iter(|| {
                i = (i + 1) % 64;
                black_box(eng.predict_learn_two_pass(&xs[i * r..(i + 1) * r], 0.5))
            })
        });
    }
    g.finish();
}

fn bench_blocked(c: &mut Criterion) {
    let mut g = c.benchmark_group("awv_blocked_rounds");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    for &r in &[190usize, 495, 1001, 2300] {
        let n = 128;
        let xs = stream(r, n);
        let ys = vec![0.5; n];
        g.throughput(Throughput::Elements(n as u64));
        // The rounds as the engine ran them before the fused round.
        let mut ainv = packed::scaled_identity(r, 1.0);
        let (mut b, mut h) = (vec![0.0; r], vec![0.0; r]);
        g.bench_with_input(BenchmarkId::new("two_pass_before", r), &r, |bch, _| {
            bch.iter(|| {
                let mut last = 0.0;
                for (x, &y) in xs.chunks(r).zip(&ys) {
                    last = two_pass_round(&mut ainv, &mut b, &mut h, x, y);
                }
                black_box(last)
            })
        });
        let mut out = Vec::with_capacity(n);
        for bs in [1usize, 32, 64] {
            let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
            g.bench_with_input(BenchmarkId::new(format!("block{bs}"), r), &r, |bch, _| {
                bch.iter(|| {
                    out.clear();
                    for (x, y) in xs.chunks(bs * r).zip(ys.chunks(bs)) {
                        eng.predict_learn_block(x, y, &mut out);
                    }
                    black_box(out.last().copied())
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_engine, bench_taylor, bench_single_vs_two_pass, bench_blocked);
criterion_main!(benches);
