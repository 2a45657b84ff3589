//! Column layout of the online projection estimator (Zhang and Simon, Algorithm 2,
//! sec. 5 / Appendix D, Appendix F; choices in docs/choices.md, "Projection").
//!
//! Columns are, in order: the always-on prefix (global intercept, then shifted Legendre
//! polynomials `P~_1..P~_m` of each coordinate), then the scheduled *units*. A unit is what
//! one step of the schedule switches on:
//! * non-additive, `count = function`: the next tensor-product eigenfunction (one column);
//! * non-additive, `count = pair` (trig basis, d = 1): the sine and cosine of the next frequency;
//! * additive (eq. 82-83): the next function on every coordinate (d columns; 2d with pairs).

use super::legendre;
use super::tensor::TensorOrder;
use super::{Basis1D, LANES};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// One column of the design matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Column {
    /// The constant 1.
    Intercept,
    /// `P~_degree(x_coord)` (shifted Legendre).
    Poly { coord: u32, degree: u32 },
    /// `prod_l psi_{J_l}(x_l)` (1-based indices; d = 1 gives `psi_j`).
    Tensor(Vec<u32>),
    /// `psi_j(x_coord)` (additive model).
    Coord { coord: u32, j: u32 },
}

impl Column {
    pub fn describe(&self, basis: &Basis1D) -> String {
        match self {
            Column::Intercept => "1".into(),
            Column::Poly { coord, degree } => format!("P{degree}(x{coord})"),
            Column::Tensor(j) if j.len() == 1 => format!("{}[{}]", basis.name(), j[0]),
            Column::Tensor(j) => format!(
                "{}[{}]",
                basis.name(),
                j.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
            ),
            Column::Coord { coord, j } => format!("{}[{}](x{coord})", basis.name(), j),
        }
    }
}

/// Scratch buffers of [`Design::eval_into`] (per-coordinate 1-D values), kept by the
/// caller so that nothing is allocated per round.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    vals: Vec<Vec<f64>>,
    polys: Vec<Vec<f64>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Design {
    d: usize,
    basis: Basis1D,
    additive: bool,
    pairs: bool,
    prefix_degree: Option<u32>,
    columns: Vec<Column>,
    n_prefix: usize,
    tensor: TensorOrder,
    /// Next 1-D index per coordinate (additive model).
    next_j: u32,
    /// Largest 1-D index used by any column, per coordinate.
    max_j: Vec<usize>,
}

impl Design {
    pub fn new(
        d: usize,
        basis: Basis1D,
        additive: bool,
        pairs: bool,
        prefix_degree: Option<u32>,
    ) -> Result<Design> {
        if d == 0 {
            return crate::input_err!("inputs need at least one feature");
        }
        if pairs && !matches!(basis, Basis1D::Trig { .. }) {
            return crate::param_err!(
                "count=\"pair\" needs the trig basis (sin/cos pairs), got {:?}",
                basis.name()
            );
        }
        if pairs && !additive && d > 1 {
            return crate::param_err!(
                "count=\"pair\" is defined for d = 1 or the additive model, got d = {d}"
            );
        }
        if let Some(m) = prefix_degree {
            if m > 10 {
                return crate::param_err!("prefix degree must be <= 10, got {m}");
            }
        }
        let mut columns = Vec::new();
        if let Some(m) = prefix_degree {
            columns.push(Column::Intercept);
            for coord in 0..d as u32 {
                for degree in 1..=m {
                    columns.push(Column::Poly { coord, degree });
                }
            }
        }
        let n_prefix = columns.len();
        Ok(Design {
            d,
            basis,
            additive,
            pairs,
            prefix_degree,
            columns,
            n_prefix,
            tensor: TensorOrder::new(d, basis),
            next_j: 1,
            max_j: vec![0; d],
        })
    }

    pub fn input_dim(&self) -> usize {
        self.d
    }

    /// The per-coordinate buffers hold `d` entries: a decoded state's `d` is then bounded
    /// by its own length (checked before anything is built from `d`).
    pub fn sizes_agree(&self) -> bool {
        self.max_j.len() == self.d
    }

    pub fn basis(&self) -> &Basis1D {
        &self.basis
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn n_columns(&self) -> usize {
        self.columns.len()
    }

    pub fn n_prefix(&self) -> usize {
        self.n_prefix
    }

    /// Appends the columns of the next scheduled unit; returns how many were added.
    pub fn push_unit(&mut self) -> usize {
        let before = self.columns.len();
        let per = if self.pairs { 2 } else { 1 };
        if self.additive {
            for _ in 0..per {
                let j = self.next_j;
                for coord in 0..self.d as u32 {
                    self.columns.push(Column::Coord { coord, j });
                    self.max_j[coord as usize] = self.max_j[coord as usize].max(j as usize);
                }
                self.next_j += 1;
            }
        } else {
            for _ in 0..per {
                let idx = self.tensor.next_index();
                for (l, &j) in idx.iter().enumerate() {
                    self.max_j[l] = self.max_j[l].max(j as usize);
                }
                self.columns.push(Column::Tensor(idx));
            }
        }
        self.columns.len() - before
    }

    /// Writes the values of all columns at `x` into `out[..n_columns()]`.
    pub fn eval_into(&self, x: &[f64], scratch: &mut Scratch, out: &mut [f64]) {
        let p = self.columns.len();
        if self.d == 1 && !self.additive {
            // Fast path: prefix polynomials, then psi_1..psi_m in order.
            let np = self.n_prefix;
            if np > 0 {
                legendre::eval_into(x[0], &mut out[..np]);
            }
            self.basis.eval_into(x[0], &mut out[np..p]);
            return;
        }
        if scratch.vals.len() != self.d {
            scratch.vals = vec![Vec::new(); self.d];
            scratch.polys = vec![Vec::new(); self.d];
        }
        let pdeg = self.prefix_degree.map_or(0, |m| m as usize + 1);
        for (l, &xl) in x.iter().enumerate().take(self.d) {
            let v = &mut scratch.vals[l];
            v.resize(self.max_j[l], 0.0);
            self.basis.eval_into(xl, v);
            let q = &mut scratch.polys[l];
            q.resize(pdeg, 0.0);
            legendre::eval_into(x[l], q);
        }
        for (o, col) in out[..p].iter_mut().zip(&self.columns) {
            *o = match col {
                Column::Intercept => 1.0,
                Column::Poly { coord, degree } => scratch.polys[*coord as usize][*degree as usize],
                Column::Coord { coord, j } => scratch.vals[*coord as usize][*j as usize - 1],
                Column::Tensor(idx) => {
                    let mut v = 1.0;
                    for (l, &j) in idx.iter().enumerate() {
                        v *= scratch.vals[l][j as usize - 1];
                    }
                    v
                }
            };
        }
    }

    /// Block evaluation over up to [`LANES`] rows (row-major `rows`, `B x d`):
    /// `out[j * LANES + r]` is column `j` at row `r`, for all columns (`out.len() >= p * LANES`).
    /// Used by the column additions, where the basis recurrences of several rows run side by
    /// side. Lanes `r >= B` are unspecified.
    pub fn eval_block(&self, rows: &[f64], scratch: &mut Scratch, out: &mut [f64]) {
        let d = self.d;
        let p = self.columns.len();
        if d == 1 && !self.additive {
            let np = self.n_prefix;
            if np > 0 {
                let mut tmp = vec![0.0; np];
                for (r, &x) in rows.iter().enumerate() {
                    legendre::eval_into(x, &mut tmp);
                    for j in 0..np {
                        out[j * LANES + r] = tmp[j];
                    }
                }
            }
            self.basis.eval_block(rows, p - np, &mut out[np * LANES..p * LANES]);
            return;
        }
        let mut tmp = vec![0.0; p];
        for (r, x) in rows.chunks_exact(d).enumerate() {
            self.eval_into(x, scratch, &mut tmp);
            for j in 0..p {
                out[j * LANES + r] = tmp[j];
            }
        }
    }

    /// Checks that every coordinate of `x` is in the basis domain.
    pub fn check_domain(&self, x: &[f64]) -> Result<()> {
        check_domain(&self.basis, x)
    }
}

/// Checks that every coordinate of `x` is in the domain of `basis`.
pub fn check_domain(basis: &Basis1D, x: &[f64]) -> Result<()> {
    for (l, &v) in x.iter().enumerate() {
        if !basis.in_domain(v) {
            return crate::input_err!(
                "x[{l}] = {v} is outside the domain {} of the {} basis",
                basis.domain_text(),
                basis.name()
            );
        }
    }
    Ok(())
}
