//! Run-time instruction-set dispatch (`kernelstream::simd`): the selected path,
//! and every path this CPU supports against the baseline, within the rounding
//! error bounds of each kernel (the FMA paths round once per multiply-add instead
//! of twice), and the two FMA paths against each other bit for bit (same
//! operations in the same order, only the vector width differs).
//!
//! `.ci/qemu` runs this binary under `qemu-x86_64 -cpu Nehalem` with
//! `KERNELSTREAM_EXPECT_SIMD=baseline`.

use kernelstream::__internal::linalg::{blas, packed, upper};
use kernelstream::__internal::simd::{self, Path};
use kernelstream::features::trig;
use kernelstream::rng::Rng;

const EPS: f64 = f64::EPSILON;

fn supported() -> Vec<Path> {
    Path::ALL.into_iter().filter(|p| p.supported()).collect()
}

fn vec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.normal()).collect()
}

#[test]
fn selected_path_is_the_expected_one() {
    let sel = simd::selected();
    assert!(sel.supported());
    assert!(sel <= simd::detected());
    if let Ok(expect) = std::env::var("KERNELSTREAM_EXPECT_SIMD") {
        assert_eq!(sel.name(), expect, "detected {}", simd::detected().name());
    } else if std::env::var("KERNELSTREAM_SIMD").is_err() {
        assert_eq!(sel, simd::detected());
    }
    // The rest of the crate is compiled for baseline x86-64.
    #[cfg(target_arch = "x86_64")]
    assert!(!simd::compiled_features().contains(&"avx"), "{:?}", simd::compiled_features());
}

#[test]
fn dot_and_axpy_agree_across_paths() {
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 3, 8, 13, 64, 1001] {
        let (a, b) = (vec(&mut rng, n), vec(&mut rng, n));
        let abs: f64 = a.iter().zip(&b).map(|(x, y)| (x * y).abs()).sum();
        let base = blas::dot_on(Path::Baseline, &a, &b);
        for p in supported() {
            let d = blas::dot_on(p, &a, &b);
            // |fl(a.b) - a.b| <= n eps sum |a_i b_i| for either rounding scheme.
            assert!((d - base).abs() <= 2.0 * n as f64 * EPS * abs, "{p:?} n={n}");
            let c: Vec<f64> = b.iter().map(|v| v * 0.5).collect();
            let four = blas::dot4_on(p, &a, [&b, &c, &a, &b]);
            let one = [&b, &c, &a, &b].map(|bj| blas::dot_on(p, &a, bj));
            assert_eq!(four.map(f64::to_bits), one.map(f64::to_bits), "{p:?}");
            let (mut y0, mut y1) = (b.clone(), b.clone());
            blas::axpy_on(Path::Baseline, 0.7, &a, &mut y0);
            blas::axpy_on(p, 0.7, &a, &mut y1);
            for i in 0..n {
                // Two roundings against one: at most 2 eps (|y| + |alpha x|) apart.
                let bound = 2.0 * EPS * (b[i].abs() + (0.7 * a[i]).abs());
                assert!((y0[i] - y1[i]).abs() <= bound, "{p:?} i={i}");
            }
        }
    }
}

#[test]
fn packed_symv_and_syr_agree_across_paths() {
    let mut rng = Rng::new(12);
    for r in [1usize, 5, 45, 190] {
        let a = vec(&mut rng, packed::packed_len(r));
        let v = vec(&mut rng, r);
        let dense = packed::to_dense(&a, r);
        let mut h0 = vec![0.0; r];
        packed::symv_on(Path::Baseline, &a, &v, &mut h0);
        for p in supported() {
            let mut h = vec![0.0; r];
            packed::symv_on(p, &a, &v, &mut h);
            for i in 0..r {
                let abs: f64 = (0..r).map(|j| (dense[i * r + j] * v[j]).abs()).sum();
                assert!((h[i] - h0[i]).abs() <= 2.0 * r as f64 * EPS * abs, "{p:?} r={r}");
            }
            let (mut a0, mut a1) = (a.clone(), a.clone());
            packed::syr_on(Path::Baseline, &mut a0, 0.3, &v);
            packed::syr_on(p, &mut a1, 0.3, &v);
            for j in 0..r {
                for i in 0..=j {
                    let k = j * (j + 1) / 2 + i;
                    let bound = 3.0 * EPS * (a[k].abs() + (0.3 * v[i] * v[j]).abs());
                    assert!((a0[k] - a1[k]).abs() <= bound, "{p:?} ({i},{j})");
                }
            }
        }
    }
}

#[test]
fn fma_paths_are_bit_identical() {
    if !Path::Avx512.supported() {
        return; // only one FMA path on this CPU: nothing to compare
    }
    let mut rng = Rng::new(13);
    let r = 77;
    let a = vec(&mut rng, packed::packed_len(r));
    let v = vec(&mut rng, r);
    let (mut h2, mut h5) = (vec![0.0; r], vec![0.0; r]);
    packed::symv_on(Path::Avx2Fma, &a, &v, &mut h2);
    packed::symv_on(Path::Avx512, &a, &v, &mut h5);
    assert_eq!(h2, h5);
    let (mut a2, mut a5) = (a.clone(), a.clone());
    packed::syr_on(Path::Avx2Fma, &mut a2, 0.3, &v);
    packed::syr_on(Path::Avx512, &mut a5, 0.3, &v);
    assert_eq!(a2, a5);
    assert_eq!(
        blas::dot_on(Path::Avx2Fma, &a, &a).to_bits(),
        blas::dot_on(Path::Avx512, &a, &a).to_bits()
    );
    let u: Vec<f64> = v.iter().map(|x| 30.0 * x).collect();
    let (mut c2, mut s2, mut c5, mut s5) = (vec![0.0; r], u.clone(), vec![0.0; r], u.clone());
    trig::sincos_in_place_on(Path::Avx2Fma, &mut c2, &mut s2, 1.0);
    trig::sincos_in_place_on(Path::Avx512, &mut c5, &mut s5, 1.0);
    assert_eq!((c2, s2), (c5, s5));
}

#[test]
fn cosines_agree_with_std_on_every_path() {
    let mut rng = Rng::new(14);
    let u: Vec<f64> =
        (0..5000).map(|i| (2.0 * rng.uniform() - 1.0) * [1.0, 50.0, 9e4][i % 3]).collect();
    for p in supported() {
        let (mut c, mut s) = (vec![0.0; u.len()], u.clone());
        trig::sincos_in_place_on(p, &mut c, &mut s, 1.0);
        let mut c2 = u.clone();
        trig::cos_in_place_on(p, &mut c2, 1.0);
        for (i, &x) in u.iter().enumerate() {
            assert!((c[i] - x.cos()).abs() <= 6e-16, "{p:?} cos({x})");
            assert!((s[i] - x.sin()).abs() <= 6e-16, "{p:?} sin({x})");
            assert_eq!(c2[i], c[i]);
        }
    }
}

/// The one-pass round (update, then mat-vec, four columns at a time) equals the
/// two passes bit for bit on every path and order, and its product is the dense one.
#[test]
fn fused_round_is_bitwise_two_pass_on_every_path() {
    let mut rng = Rng::new(14);
    for r in [1usize, 3, 4, 5, 9, 37, 130, 257] {
        let packed_a = vec(&mut rng, packed::packed_len(r));
        let a = upper::from_packed(&packed_a, r);
        let (v, hp) = (vec(&mut rng, r), vec(&mut rng, r));
        for p in supported() {
            let mut two = a.clone();
            upper::syr_on(p, &mut two, 0.7, &hp);
            let mut h_two = vec![0.0; r];
            upper::symv_on(p, &two, &v, &mut h_two);
            let (mut one, mut h_one) = (a.clone(), vec![0.0; r]);
            upper::syr_symv_on(p, &mut one, 0.7, &hp, &v, &mut h_one);
            let mut h_peek = vec![0.0; r];
            upper::syr_symv_peek_on(p, &a, 0.7, &hp, &v, &mut h_peek, &mut Vec::new());
            let bits = |x: &[f64]| x.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&h_one), bits(&h_two), "{p:?} r={r}");
            assert_eq!(bits(&h_peek), bits(&h_two), "{p:?} r={r}");
            assert_eq!(upper::to_packed(&one, r), upper::to_packed(&two, r), "{p:?} r={r}");
            // Packed storage runs the same column kernels: the same bits.
            let mut h_packed = vec![0.0; r];
            packed::symv_on(p, &upper::to_packed(&two, r), &v, &mut h_packed);
            assert_eq!(bits(&h_packed), bits(&h_two), "{p:?} r={r}");
            let dense = upper::to_dense(&two, r);
            for i in 0..r {
                let e: f64 = (0..r).map(|j| dense[i * r + j] * v[j]).sum();
                let abs: f64 = (0..r).map(|j| (dense[i * r + j] * v[j]).abs()).sum();
                assert!((h_two[i] - e).abs() <= 2.0 * r as f64 * EPS * abs, "{p:?} r={r}");
            }
        }
    }
}
