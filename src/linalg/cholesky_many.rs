//! Single-round factor work of several independent factors at once (the dictionary
//! experts of a mixture, one serving round): each factor's columns are processed
//! in turn, column `k` of every factor before column `k + 1` of any. A column of a
//! rank-one update or of a forward solve waits on a chain of divisions (and a
//! `hypot`) that the previous column ends; the chains of different factors are
//! independent, so the processor overlaps them. Every factor gets exactly the
//! operations of its own [`ColCholesky::rank_one_update`] /
//! [`ColCholesky::forward_solve2`], in the same order: the same bits.

use super::ColCholesky;

/// [`ColCholesky::rank_one_update`]`(xs[i])` of every `ls[i]`.
pub fn rank_one_update(ls: &mut [&mut ColCholesky], xs: &mut [&mut [f64]]) {
    assert_eq!(ls.len(), xs.len());
    let m = ls.iter().map(|l| l.dim()).max().unwrap_or(0);
    for k in 0..m {
        for (l, x) in ls.iter_mut().zip(xs.iter_mut()) {
            if k < l.dim() {
                l.update_column(k, x);
            }
        }
    }
}

/// [`ColCholesky::forward_solve2`]`(a[i], b[i])` on every `ls[i]`.
pub fn forward_solve2(ls: &[&ColCholesky], a: &mut [&mut [f64]], b: &mut [&mut [f64]]) {
    assert!(ls.len() == a.len() && ls.len() == b.len());
    let m = ls.iter().map(|l| l.dim()).max().unwrap_or(0);
    for k in 0..m {
        for ((l, a), b) in ls.iter().zip(a.iter_mut()).zip(b.iter_mut()) {
            if k < l.dim() {
                l.solve2_column(k, a, b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn factor(m: usize, seed: u64) -> ColCholesky {
        let mut rng = Rng::new(seed);
        let b: Vec<f64> = (0..m * m).map(|_| rng.normal()).collect();
        let mut a = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                a[i * m + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum::<f64>()
                    + if i == j { 0.5 } else { 0.0 };
            }
        }
        ColCholesky::factor(&a, m).unwrap()
    }

    fn bits(x: &[f64]) -> Vec<u64> {
        x.iter().map(|v| v.to_bits()).collect()
    }

    /// Factors of different orders, a zero entry in an update: the bits of one at a time.
    #[test]
    fn together_is_one_at_a_time_bit_for_bit() {
        let dims = [7, 12, 1, 12];
        let mut rng = Rng::new(5);
        let mut one: Vec<ColCholesky> =
            dims.iter().enumerate().map(|(i, &m)| factor(m, i as u64)).collect();
        let mut many = one.clone();
        let vecs = |rng: &mut Rng| -> Vec<Vec<f64>> {
            dims.iter()
                .map(|&m| (0..m).map(|i| if i == 3 { 0.0 } else { rng.normal() }).collect())
                .collect()
        };
        for _ in 0..3 {
            let x = vecs(&mut rng);
            let (mut x1, mut x2) = (x.clone(), x);
            for (l, x) in one.iter_mut().zip(&mut x1) {
                l.rank_one_update(x);
            }
            let mut ls: Vec<&mut ColCholesky> = many.iter_mut().collect();
            let mut xs: Vec<&mut [f64]> = x2.iter_mut().map(|v| &mut v[..]).collect();
            rank_one_update(&mut ls, &mut xs);
            for (a, b) in one.iter().zip(&many) {
                assert_eq!(bits(&a.to_dense()), bits(&b.to_dense()));
            }
            assert_eq!(x1, x2);
            let (a0, b0) = (vecs(&mut rng), vecs(&mut rng));
            let (mut a1, mut b1, mut a2, mut b2) = (a0.clone(), b0.clone(), a0, b0);
            for ((l, a), b) in one.iter().zip(&mut a1).zip(&mut b1) {
                l.forward_solve2(a, b);
            }
            let ls: Vec<&ColCholesky> = many.iter().collect();
            let mut av: Vec<&mut [f64]> = a2.iter_mut().map(|v| &mut v[..]).collect();
            let mut bv: Vec<&mut [f64]> = b2.iter_mut().map(|v| &mut v[..]).collect();
            forward_solve2(&ls, &mut av, &mut bv);
            for (u, v) in a1.iter().chain(&b1).zip(a2.iter().chain(&b2)) {
                assert_eq!(bits(u), bits(v));
            }
        }
    }

    /// Timing, not a check: `cargo test --release -- --ignored --nocapture many_timing`
    /// (fastest of many calls: the machine may be shared).
    #[test]
    #[ignore]
    fn many_timing() {
        let m = 200;
        let mut ls: Vec<ColCholesky> = (0..4).map(|i| factor(m, i)).collect();
        let mut rng = Rng::new(1);
        let xs: Vec<Vec<f64>> =
            (0..4).map(|_| (0..m).map(|_| 0.01 * rng.normal()).collect()).collect();
        let best = |f: &mut dyn FnMut()| {
            (0..3000)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e6
                })
                .fold(f64::INFINITY, f64::min)
        };
        let (mut xa, mut xb) = (xs.clone(), xs.clone());
        let one = best(&mut || {
            xa.clone_from(&xs);
            for (l, x) in ls.iter_mut().zip(&mut xa) {
                l.rank_one_update(x);
            }
        });
        let many = best(&mut || {
            xb.clone_from(&xs);
            let mut lr: Vec<&mut ColCholesky> = ls.iter_mut().collect();
            let mut xr: Vec<&mut [f64]> = xb.iter_mut().map(|v| &mut v[..]).collect();
            rank_one_update(&mut lr, &mut xr);
        });
        let s1 = best(&mut || {
            xa.clone_from(&xs);
            xb.clone_from(&xs);
            for ((l, a), b) in ls.iter().zip(&mut xa).zip(&mut xb) {
                l.forward_solve2(a, b);
            }
        });
        let s2 = best(&mut || {
            xa.clone_from(&xs);
            xb.clone_from(&xs);
            let lr: Vec<&ColCholesky> = ls.iter().collect();
            let mut av: Vec<&mut [f64]> = xa.iter_mut().map(|v| &mut v[..]).collect();
            let mut bv: Vec<&mut [f64]> = xb.iter_mut().map(|v| &mut v[..]).collect();
            forward_solve2(&lr, &mut av, &mut bv);
        });
        println!("update one {one:.1} us, many {many:.1} us; solve one {s1:.1}, many {s2:.1}");
    }
}
