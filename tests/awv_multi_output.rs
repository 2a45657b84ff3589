//! Multi-output linear AWV (`src/awv/outputs.rs`): `K` target columns share one
//! `A^{-1}`, so output `j` of the multi-output engine is the single-output engine
//! run on column `j` of the targets. Checked for single rounds, blocks (plain and
//! discounted), ridge and AWV, the pure predictions, serialisation, and a column
//! added later (equal to a column of zero targets from the first round).
use kernelstream::awv::LinearAwv;
use kernelstream::rng::Rng;

fn stream(n: usize, r: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * r).map(|_| rng.normal() / (r as f64).sqrt()).collect();
    let y = (0..n * k)
        .map(|i| {
            let (t, j) = (i / k, i % k);
            let row = &x[t * r..(t + 1) * r];
            row.iter().enumerate().map(|(l, v)| v * ((l + j) as f64).cos()).sum::<f64>()
                + 0.1 * rng.normal()
        })
        .collect();
    (x, y)
}

fn column(y: &[f64], k: usize, j: usize) -> Vec<f64> {
    y.iter().skip(j).step_by(k).copied().collect()
}

fn assert_rel(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(1e-300f64, |m, x| m.max(x.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * scale, "{what}[{i}]: {x} vs {y}");
    }
}

fn engine(r: usize, k: usize, ridge: bool, gamma: f64) -> LinearAwv {
    LinearAwv::new(r, 0.7, ridge).unwrap().with_gamma(gamma).unwrap().with_outputs(k).unwrap()
}

/// Runs `n` rounds in blocks of `block` (1: single rounds); predictions `n x K`.
fn run(e: &mut LinearAwv, x: &[f64], y: &[f64], block: usize) -> Vec<f64> {
    let (r, k) = (e.dim(), e.n_outputs());
    let mut out = Vec::new();
    e.predict_learn_rows(
        x,
        r,
        y,
        block,
        |row, f| {
            f.copy_from_slice(row);
            Ok(())
        },
        Some(&mut out),
    )
    .unwrap();
    assert_eq!(out.len(), y.len() / k * k);
    out
}

#[test]
fn k_outputs_equal_k_single_output_engines() {
    let (n, r, k) = (300, 24, 4);
    let (x, y) = stream(n, r, k, 3);
    for ridge in [false, true] {
        for gamma in [1.0, 0.98] {
            for block in [1, 16] {
                let mut multi = engine(r, k, ridge, gamma);
                let out = run(&mut multi, &x, &y, block);
                let probe = &x[..r];
                let mut pm = vec![0.0; k];
                multi.predict_multi(probe, &mut pm);
                let mut many = Vec::new();
                multi.predict_many(&x[..10 * r], &mut many);
                let w = multi.weights();
                for j in 0..k {
                    let what = format!("ridge={ridge} gamma={gamma} block={block} output {j}");
                    let mut single = engine(r, 1, ridge, gamma);
                    let yj = column(&y, k, j);
                    let sj = run(&mut single, &x, &yj, block);
                    assert_rel(&column(&out, k, j), &sj, 1e-10, &what);
                    assert_rel(&[pm[j]], &[single.predict(probe)], 1e-10, &what);
                    let mut many1 = Vec::new();
                    single.predict_many(&x[..10 * r], &mut many1);
                    assert_rel(&column(&many, k, j), &many1, 1e-10, &what);
                    assert_rel(&w[j * r..(j + 1) * r], &single.weights(), 1e-10, &what);
                    assert_rel(&multi.b()[j * r..(j + 1) * r], single.b(), 1e-10, &what);
                    assert_rel(&multi.ainv_packed(), &single.ainv_packed(), 1e-12, &what);
                }
            }
        }
    }
}

#[test]
fn the_kept_prediction_finishes_a_multi_output_round() {
    let (n, r, k) = (40, 10, 3);
    let (x, y) = stream(n, r, k, 8);
    let mut a = engine(r, k, false, 1.0);
    let mut b = engine(r, k, false, 1.0);
    let (mut pa, mut pb, mut pk) = (vec![0.0; k], vec![0.0; k], vec![0.0; k]);
    for (xt, yt) in x.chunks_exact(r).zip(y.chunks_exact(k)) {
        a.predict_keep_multi(xt, &mut pk);
        assert!(a.learn_kept_multi(xt, yt, &mut pa));
        b.predict_learn_multi(xt, yt, &mut pb);
        assert_eq!(pa, pk);
        assert_eq!(pa, pb);
    }
}

#[test]
fn an_output_added_later_equals_one_with_zero_targets_from_the_start() {
    // Outputs 0..2 from the start, output 2 added after `t0` rounds whose targets
    // for it were 0 (the one-hot target of a class not seen yet).
    let (n, r, t0) = (200, 16, 70);
    for gamma in [1.0, 0.97] {
        for block in [1, 8] {
            let (x, y2) = stream(n, r, 2, 11);
            let (_, extra) = stream(n, r, 1, 12);
            let mut y3 = Vec::new();
            for t in 0..n {
                y3.extend_from_slice(&y2[2 * t..2 * t + 2]);
                y3.push(if t < t0 { 0.0 } else { extra[t] });
            }
            let mut full = engine(r, 3, false, gamma);
            let want = run(&mut full, &x, &y3, block);
            let mut late = engine(r, 2, false, gamma);
            let mut got = run(&mut late, &x[..t0 * r], &y2[..2 * t0], block);
            late.add_outputs(1).unwrap();
            assert_eq!(late.n_outputs(), 3);
            // Before the column is learned, its prediction is exactly 0.
            let mut p = vec![1.0; 3];
            late.predict_multi(&x[t0 * r..(t0 + 1) * r], &mut p);
            assert_eq!(p[2], 0.0);
            let old: Vec<f64> = got.chunks_exact(2).flat_map(|p| [p[0], p[1], 0.0]).collect();
            got = old;
            got.extend(run(&mut late, &x[t0 * r..], &y3[3 * t0..], block));
            assert_rel(&got, &want, 1e-12, &format!("gamma={gamma} block={block}"));
            assert_rel(late.b(), full.b(), 1e-12, "B");
        }
    }
}

#[test]
fn the_state_carries_the_outputs() {
    let (n, r, k) = (50, 8, 3);
    let (x, y) = stream(n, r, k, 4);
    let mut e = engine(r, k, false, 1.0);
    run(&mut e, &x, &y, 1);
    let bytes = bincode::serialize(&e).unwrap();
    let back: LinearAwv = bincode::deserialize(&bytes).unwrap();
    use kernelstream::state::ValidState;
    back.validate().unwrap();
    assert_eq!(back.n_outputs(), k);
    let (mut p, mut q) = (vec![0.0; k], vec![0.0; k]);
    e.predict_multi(&x[..r], &mut p);
    back.predict_multi(&x[..r], &mut q);
    assert_eq!(p, q);
}

#[test]
fn output_counts_are_checked() {
    assert!(LinearAwv::new(4, 1.0, false).unwrap().with_outputs(0).is_err());
    let mut e = LinearAwv::new(4, 1.0, false).unwrap();
    assert!(e.add_outputs(usize::MAX).is_err());
    assert_eq!(e.n_outputs(), 1);
    assert_eq!(e.b().len(), 4);
}
