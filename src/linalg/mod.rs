//! Dense linear-algebra kernels used on the hot path.
//!
//! * [`blas`]: dot and axpy written so that LLVM vectorises them (independent
//!   accumulators; no fast-math, so results are deterministic);
//! * [`packed`]: symmetric matrices stored as their upper triangle, packed by
//!   columns, with a symmetric matrix-vector product and a symmetric rank-one
//!   update that each read the triangle once ("touch half the matrix").
//!
//! * [`upper`]: the same symmetric matrices in a dense column-major array
//!   (upper triangle authoritative), for kernels that also need matrix-matrix
//!   products ([`gemm`], run-time dispatched `matrixmultiply`).
//!
//! Larger factorisations (Cholesky with rank-one updates, bordered inverses)
//! use nalgebra or live next to the learner that needs them.

pub mod blas;
pub mod cholesky;
pub mod gemm;
pub mod packed;
pub mod triangle;
pub mod upper;
