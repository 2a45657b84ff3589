//! The one operation that differs between paths: multiply-add.

/// Arithmetic of a path; kernels are generic over it and inlined into the
/// per-path `#[target_feature]` functions of [`dispatch!`](crate::dispatch).
pub trait Isa {
    /// `a * b + c`.
    fn mul_add(a: f64, b: f64, c: f64) -> f64;
}

/// Two roundings (`a * b`, then `+ c`): the baseline path, bit-for-bit IEEE.
pub struct Plain;

/// One rounding (fused multiply-add). Only ever inlined into functions compiled
/// with the `fma` target feature; elsewhere it would be a slow library call.
pub struct Fused;

impl Isa for Plain {
    #[inline(always)]
    fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }
}

impl Isa for Fused {
    #[inline(always)]
    fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}
