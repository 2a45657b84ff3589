//! Where the time of a block of AWV rounds goes (src/awv/block.rs): CPU time of the
//! whole blocked rounds against the `gemm` backend's 1024 x 1024 product, then of each
//! product of a block (P = S X^T by panels, G = X P, H = P U, the rank-n update) and of
//! the three products per panel inside the symmetric one. CPU time of the thread
//! (/proc/thread-self/schedstat), as the machine is shared. Not a test.
//!
//!     cargo bench --features bench --bench blocked_phases -- [r=1001] [n=64] [blocks=40]
use kernelstream::__internal::linalg::gemm::{gemm, View};
use kernelstream::__internal::linalg::upper;
use kernelstream::awv::LinearAwv;
use kernelstream::rng::Rng;

fn cpu_ns() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse::<f64>().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let r: usize = args.first().map(|s| s.parse().unwrap()).unwrap_or(1001);
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(64);
    let blocks: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(40);
    let mut rng = Rng::new(3);
    let rows = n * blocks;
    let xs: Vec<f64> = (0..rows * r).map(|_| rng.normal() / (r as f64).sqrt()).collect();
    let ys: Vec<f64> = (0..rows).map(|_| rng.normal()).collect();
    // dgemm 1024 reference (gemm crate).
    let m = 1024;
    let a: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
    let b: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
    let mut c = vec![0.0; m * m];
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = cpu_ns();
        gemm(
            1.0,
            &a,
            View::col_major(m, m, 0, m),
            &b,
            View::col_major(m, m, 0, m),
            0.0,
            &mut c,
            View::col_major(m, m, 0, m),
        );
        best = best.min(cpu_ns() - t);
    }
    let dg = 2.0 * (m as f64).powi(3) / best;
    println!("gemm-crate dgemm 1024: {dg:.1} GFlop/s");
    let mut eng = LinearAwv::new(r, 1.0, false).unwrap();
    let mut out = Vec::new();
    eng.predict_learn_block(&xs[..n * r], &ys[..n], &mut out);
    let t = cpu_ns();
    for (x, y) in xs.chunks(n * r).zip(ys.chunks(n)).skip(1) {
        assert!(eng.predict_learn_block(x, y, &mut out));
    }
    let dt = cpu_ns() - t;
    let rate = 3.0 * (r * r) as f64 * ((blocks - 1) * n) as f64 / dt;
    println!("blocked r={r} n={n}: {rate:.1} GFlop/s, ratio to gemm-crate {:.2}", rate / dg);
    // Phases on a fresh triangle.
    let ainv0 = upper::scaled_identity(r, 1.0);
    let mut ainv = ainv0.clone();
    let x = &xs[..n * r];
    let mut p = vec![0.0; r * n];
    let mut h = vec![0.0; r * n];
    let mut tile = Vec::new();
    let mut g = vec![0.0; n * n];
    let u: Vec<f64> = (0..n * n)
        .map(|i| {
            if i % (n + 1) == 0 {
                1.0
            } else if (i % n) < (i / n) {
                0.01
            } else {
                0.0
            }
        })
        .collect();
    let reps = 20;
    let mut tm = [0.0f64; 4];
    for _ in 0..reps {
        let t0 = cpu_ns();
        upper::symm_rows_t(&ainv, r, x, n, &mut p, &mut tile);
        let t1 = cpu_ns();
        gemm(
            1.0,
            x,
            View { rows: n, cols: r, off: 0, rs: r, cs: 1 },
            &p,
            View { rows: r, cols: n, off: 0, rs: n, cs: 1 },
            0.0,
            &mut g,
            View::col_major(n, n, 0, n),
        );
        let t2 = cpu_ns();
        gemm(
            1.0,
            &p,
            View { rows: r, cols: n, off: 0, rs: n, cs: 1 },
            &u,
            View::col_major(n, n, 0, n),
            0.0,
            &mut h,
            View::col_major(r, n, 0, r),
        );
        let t3 = cpu_ns();
        upper::rank_update(&mut ainv, r, -1e-9, &p, &h, n);
        let t4 = cpu_ns();
        tm[0] += t1 - t0;
        tm[1] += t2 - t1;
        tm[2] += t3 - t2;
        tm[3] += t4 - t3;
    }
    let rf = r as f64;
    let nf = n as f64;
    let fl = [2.0 * rf * rf * nf, 2.0 * rf * nf * nf, 2.0 * rf * nf * nf, rf * rf * nf];
    let names = ["symm_rows", "G=XP", "H=PU", "rank_update"];
    let tot: f64 = tm.iter().sum();
    for i in 0..4 {
        println!(
            "{:12} {:8.3} ms/block  {:5.1} GFlop/s  {:4.1}%",
            names[i],
            tm[i] / reps as f64 / 1e6,
            fl[i] * reps as f64 / tm[i],
            100.0 * tm[i] / tot
        );
    }
    // symm_rows' three products per panel, timed apart.
    let mut ts = [0.0f64; 3];
    let pw = upper::PANEL;
    let xt = |j0: usize, j1: usize| View { rows: j1 - j0, cols: n, off: j0, rs: 1, cs: r };
    let tl: Vec<f64> = vec![0.5; pw * pw];
    for _ in 0..reps {
        for j0 in (0..r).step_by(pw) {
            let j1 = (j0 + pw).min(r);
            let nb = j1 - j0;
            let base = upper::col_off(r, j0).0;
            // Rows of P as stored by symm_rows_t (P^T, column-major n x r).
            let pj = View { rows: nb, cols: n, off: j0 * n, rs: n, cs: 1 };
            let t0 = cpu_ns();
            gemm(1.0, &tl, View::col_major(nb, nb, 0, nb), x, xt(j0, j1), 1.0, &mut p, pj);
            let t1 = cpu_ns();
            if j0 > 0 {
                let above = View::col_major(j0, nb, base, j1);
                let p0 = View { rows: j0, cols: n, off: 0, rs: n, cs: 1 };
                gemm(1.0, &ainv, above, x, xt(j0, j1), 1.0, &mut p, p0);
                let t2 = cpu_ns();
                gemm(1.0, &ainv, above.t(), x, xt(0, j0), 1.0, &mut p, pj);
                let t3 = cpu_ns();
                ts[1] += t2 - t1;
                ts[2] += t3 - t2;
            }
            ts[0] += t1 - t0;
        }
    }
    // The above product from a copy with a padded leading dimension.
    let mut tc = 0.0;
    let mut buf: Vec<f64> = Vec::new();
    for _ in 0..reps {
        for j0 in (pw..r).step_by(pw) {
            let j1 = (j0 + pw).min(r);
            let nb = j1 - j0;
            let base = upper::col_off(r, j0).0;
            let t0 = cpu_ns();
            let ld = j0 + 8;
            buf.resize(ld * nb, 0.0);
            for c in 0..nb {
                buf[c * ld..c * ld + j0].copy_from_slice(&ainv[base + c * j1..base + c * j1 + j0]);
            }
            gemm(
                1.0,
                &buf,
                View::col_major(j0, nb, 0, ld),
                x,
                xt(j0, j1),
                1.0,
                &mut p,
                View::col_major(j0, n, 0, r),
            );
            tc += cpu_ns() - t0;
        }
    }
    println!("above via padded copy {:.3} ms", tc / reps as f64 / 1e6);
    let half = (rf * rf - (pw as f64) * rf) / 2.0 * 2.0 * nf; // strictly-above-panel entries x 2n
    println!(
        "symm diag tiles {:.3} ms, above {:.3} ms ({:.1} GF), above^T {:.3} ms ({:.1} GF)",
        ts[0] / reps as f64 / 1e6,
        ts[1] / reps as f64 / 1e6,
        half * reps as f64 / ts[1],
        ts[2] / reps as f64 / 1e6,
        half * reps as f64 / ts[2]
    );
    let blk = dt / (blocks - 1) as f64;
    println!(
        "whole block {:.3} ms; phases {:.3} ms; rest {:.3} ms",
        blk / 1e6,
        tot / reps as f64 / 1e6,
        (blk - tot / reps as f64) / 1e6
    );
}
