//! The online softmax calibration (src/calibration/softmax.rs): identities of its model
//! and of its ONS update, and its input checks.
use kernelstream::calibration::softmax::A_MIN;
use kernelstream::calibration::SoftmaxCalibrator;

fn stream(n: usize, k: usize) -> (Vec<f64>, Vec<usize>) {
    // deterministic noisy one-hot scores: class t mod k, noise from a fixed recurrence
    let mut s = Vec::with_capacity(n * k);
    let mut labels = Vec::with_capacity(n);
    let mut u: u64 = 12345;
    for t in 0..n {
        let label = (t * 7 + t / 3) % k;
        labels.push(label);
        for j in 0..k {
            u = u.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let noise = ((u >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1.2;
            s.push(if j == label { 1.0 } else { 0.0 } + noise);
        }
    }
    (s, labels)
}

#[test]
fn probabilities_sum_to_one_and_keep_the_highest_score() {
    let (s, labels) = stream(500, 5);
    let mut cal = SoftmaxCalibrator::new(0.1, 0.3, false).unwrap();
    let mut out = Vec::new();
    cal.progressive_into(&s, 5, &labels, &mut out).unwrap();
    for (p, row) in out.chunks_exact(5).zip(s.chunks_exact(5)) {
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        let argmax = |v: &[f64]| (0..5).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        assert_eq!(argmax(p), argmax(row));
    }
    assert!(cal.slope() > 1.0, "informative scores sharpen: slope {}", cal.slope());
    assert_eq!(cal.n_seen(), 500);
}

#[test]
fn one_round_is_the_ons_step() {
    // (1)-(2) by hand for one round from the start: a = A_MIN, A_0 = lam
    let (lam, gamma) = (0.5, 0.25);
    let s = [0.2, 0.9, -0.1];
    let mut cal = SoftmaxCalibrator::new(lam, gamma, false).unwrap();
    let mut p = [0.0; 3];
    cal.predict_learn(&s, 0, &mut p).unwrap();
    let z: Vec<f64> = s.iter().map(|v| (A_MIN * v).exp()).collect();
    let total: f64 = z.iter().sum();
    let g = z.iter().zip(&s).map(|(e, v)| e / total * v).sum::<f64>() - s[0];
    let curvature = lam + gamma * g * g;
    assert!((cal.curvature() - curvature).abs() < 1e-15);
    assert!((cal.slope() - (A_MIN - g / curvature).max(A_MIN)).abs() < 1e-15);
}

#[test]
fn bad_input_changes_nothing() {
    let (s, labels) = stream(50, 3);
    let mut cal = SoftmaxCalibrator::new(0.1, 0.3, false).unwrap();
    let mut out = Vec::new();
    cal.progressive_into(&s, 3, &labels, &mut out).unwrap();
    let before = format!("{cal:?}");
    let mut bad = labels.clone();
    bad[20] = 3;
    assert!(cal.progressive_into(&s, 3, &bad, &mut out).is_err());
    let mut nan = s.clone();
    nan[40] = f64::NAN;
    assert!(cal.progressive_into(&nan, 3, &labels, &mut out).is_err());
    assert!(cal.progressive_into(&s[..100], 2, &labels, &mut out).is_err());
    assert_eq!(format!("{cal:?}"), before);
    assert!(SoftmaxCalibrator::new(0.0, 1.0, false).is_err());
    assert!(SoftmaxCalibrator::new(1.0, f64::NAN, false).is_err());
}

#[test]
fn binning_stage_keeps_sums_order_and_bounds_and_its_state_validates() {
    use kernelstream::calibration::binning::WIDTHS;
    use kernelstream::state::ValidState;
    let (s, labels) = stream(3000, 4);
    // scores far beyond the softmax's range: the first stage rounds to 0 and 1
    let s: Vec<f64> = s.iter().map(|v| 400.0 * v).collect();
    let mut cal = SoftmaxCalibrator::new(0.1, 0.3, true).unwrap();
    let mut out = Vec::new();
    cal.progressive_into(&s, 4, &labels, &mut out).unwrap();
    for (p, row) in out.chunks_exact(4).zip(s.chunks_exact(4)) {
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        assert!(p.iter().all(|&v| v > 0.0 && v < 1.0), "{p:?}");
        let argmax = |v: &[f64]| (0..4).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        assert_eq!(argmax(p), argmax(row));
    }
    let b = cal.binning().unwrap();
    assert_eq!(b.n_seen(), 3000);
    for i in 0..WIDTHS.len() {
        assert_eq!(b.bins(i).iter().map(|x| x.n).sum::<u64>(), 3000);
    }
    assert!((b.weights().iter().sum::<f64>() - 1.0).abs() < 1e-14);
    cal.validate().unwrap();
    // constant scores: ties stay ties (the uniform distribution), no NaN
    let mut p = [0.0; 4];
    cal.predict_learn(&[0.3; 4], 2, &mut p).unwrap();
    assert!(p.iter().all(|&v| (v - 0.25).abs() < 1e-15), "{p:?}");
}
