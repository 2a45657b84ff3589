//! The two product backends of `linalg::gemm` on the shapes of the blocked rounds, in
//! one run (GFlop/s as criterion's element throughput: one element = one flop).
//! TaylorAWV at r = 1001 (blocks of 64 rows, 128-column panels of the triangle):
//! `P = S X^T` by panels (`tile`, `above`, `above_t`), `G = X P`, `H = P U` and the
//! rank-64 update of a panel; NystromAWV at m = 200 (blocks of 64 rows, 32-column
//! reflector panels): `W = V^T K`, `K -= V W2` and the forward substitution's update.
//! `cargo bench --features bench --bench gemm`.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernelstream::__internal::linalg::gemm::{gemm_on, Backend, View};
use std::hint::black_box;
use std::time::Duration;

/// A named product `C (m x n, by columns) += A B` with the given views of `A` and `B`.
struct Shape {
    name: &'static str,
    a: View,
    b: View,
}

fn cm(rows: usize, cols: usize, ld: usize) -> View {
    View::col_major(rows, cols, 0, ld)
}

fn shapes() -> Vec<Shape> {
    let (r, n) = (1001, 64);
    let by_rows = |rows, cols, ld| View { rows, cols, off: 0, rs: ld, cs: 1 };
    vec![
        Shape { name: "taylor_tile_128x128x64", a: cm(128, 128, 128), b: cm(128, n, r) },
        Shape { name: "taylor_above_896x128x64", a: cm(896, 128, 1001), b: cm(128, n, r) },
        Shape { name: "taylor_above_t_128x896x64", a: by_rows(128, 896, 1001), b: cm(896, n, r) },
        Shape { name: "taylor_g_64x1001x64", a: by_rows(n, r, r), b: cm(r, n, r) },
        Shape { name: "taylor_h_1001x64x64", a: cm(r, n, r), b: cm(n, n, n) },
        Shape { name: "taylor_rank_1001x64x105", a: cm(r, n, r), b: by_rows(n, 105, r) },
        Shape { name: "nystrom_w_32x64x168", a: by_rows(32, 64, 64), b: cm(64, 168, 64) },
        Shape { name: "nystrom_vw2_64x32x168", a: cm(64, 32, 64), b: cm(32, 168, 32) },
        Shape { name: "nystrom_fwd_168x32x64", a: cm(168, 32, 200), b: by_rows(32, 64, 64) },
    ]
}

fn bench_backends(c: &mut Criterion) {
    let mut g = c.benchmark_group("gemm_backends");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for s in shapes() {
        let (m, k, n) = (s.a.rows, s.a.cols, s.b.cols);
        let len = |v: View| (v.rows - 1) * v.rs + (v.cols - 1) * v.cs + 1;
        let a: Vec<f64> = (0..len(s.a)).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..len(s.b)).map(|i| (i as f64 * 0.11).cos()).collect();
        let mut out = vec![0.0; m * n];
        g.throughput(Throughput::Elements(2 * (m * k * n) as u64));
        for backend in Backend::ALL.into_iter().filter(|b| b.supported()) {
            g.bench_with_input(BenchmarkId::new(backend.name(), s.name), &s, |bch, s| {
                bch.iter(|| {
                    gemm_on(backend, 1.0, &a, s.a, &b, s.b, 1.0, &mut out, cm(m, n, m));
                    black_box(out[0])
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_backends);
criterion_main!(benches);
