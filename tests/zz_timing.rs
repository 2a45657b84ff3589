use kernelstream::kernels::Kernel;
use kernelstream::learners::KernelAwv;
use kernelstream::rng::Rng;
use kernelstream::stream;
#[test]
#[ignore]
fn time_kernel_awv() {
    let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(10000);
    let d = 9;
    let mut rng = Rng::new(1);
    let x: Vec<f64> = (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect();
    let y: Vec<f64> = (0..n).map(|i| x[i * d].sin()).collect();
    let mut a = KernelAwv::new(Kernel::Gaussian { sigma: 1.0 }, 1.0, true, 20000).unwrap();
    let t0 = std::time::Instant::now();
    let p = stream::progressive_predict(&mut a, &x, n, d, &y).unwrap();
    eprintln!("n={n}: {:.2} s, last pred {}", t0.elapsed().as_secs_f64(), p[n - 1]);
}
