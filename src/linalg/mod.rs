//! Dense linear-algebra kernels of the hot path, each compiled per instruction-set
//! path and chosen at run time where it dominates a round ([`crate::simd`]; the FMA
//! paths may differ from the baseline in the last bits, the order of operations is
//! fixed on each path):
//!
//! * [`blas`]: dot and axpy with independent accumulators;
//! * [`triangle`]: the per-round kernels on the upper triangle of a symmetric
//!   matrix stored by columns (mat-vec, rank-one update fused with the mat-vec),
//!   shared by the two storages below;
//! * [`packed`]: symmetric matrices as their upper triangle packed by columns
//!   (each per-round kernel reads the triangle once: "touch half the matrix");
//! * [`upper`]: the same triangle in column panels, so that blocks of rounds can
//!   also use matrix-matrix products on each panel;
//! * [`gemm`]: matrix-matrix products on strided views (the `gemm` crate or
//!   `matrixmultiply`, each picking its micro-kernel at run time);
//! * [`cholesky`]: a growing lower Cholesky factor stored by columns, with rank-one
//!   updates, bordering and a blocked solve-and-update (the Nystrom forecaster).

pub mod blas;
pub mod cholesky;
pub mod gemm;
pub mod packed;
pub mod triangle;
pub mod upper;
