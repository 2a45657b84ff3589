//! Records the compiler, profile and target for `kernelstream.build_info()`.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=KS_RUSTC_VERSION={version}");
    for var in ["PROFILE", "TARGET"] {
        println!("cargo:rustc-env=KS_{var}={}", std::env::var(var).unwrap_or_default());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
