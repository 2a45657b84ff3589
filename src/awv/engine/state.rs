//! The engine's serialised form and the invariants of a decoded state.

use super::{check_gamma, outputs, state_doubles, LinearAwv};
use crate::error::Result;
use crate::limits::scale;
use crate::linalg::upper;
use crate::uncertainty::{NoiseLevel, OtherOutputs};
use serde::{Deserialize, Serialize};

/// The serialised form: the packed upper triangle of `A^{-1}` (pending update
/// applied), so a state is `r (r + 1) / 2 + r` doubles plus scalars.
#[derive(Serialize)]
#[serde(rename = "LinearAwv")]
struct StoredRef<'a> {
    r: usize,
    lam: f64,
    ridge: bool,
    gamma: f64,
    ainv: PackedTriangle<'a>,
    b: &'a [f64],
    n_seen: u64,
    last_leverage: f64,
    regret_term: f64,
    noise: &'a NoiseLevel,
    noise_rest: &'a OtherOutputs,
}

#[derive(Deserialize)]
#[serde(rename = "LinearAwv")]
struct Stored {
    r: usize,
    lam: f64,
    ridge: bool,
    /// Absent in states saved before discounting existed: 1.
    #[serde(default = "no_discount")]
    gamma: f64,
    ainv: Vec<f64>,
    b: Vec<f64>,
    n_seen: u64,
    last_leverage: f64,
    regret_term: f64,
    noise: NoiseLevel,
    /// Absent in states saved before it existed (empty with one output).
    #[serde(default)]
    noise_rest: OtherOutputs,
}

/// The forgetting factor of states saved before discounting existed.
pub fn no_discount() -> f64 {
    1.0
}

struct PackedTriangle<'a>(&'a LinearAwv);

impl Serialize for PackedTriangle<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let e = self.0;
        let mut seq = s.serialize_seq(Some(e.r * (e.r + 1) / 2))?;
        let mut col = vec![0.0; e.r];
        for j in 0..e.r {
            e.column(j, &mut col);
            for v in &col[..=j] {
                seq.serialize_element(v)?;
            }
        }
        seq.end()
    }
}

impl Serialize for LinearAwv {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        StoredRef {
            r: self.r,
            lam: self.lam,
            ridge: self.ridge,
            gamma: self.gamma,
            ainv: PackedTriangle(self),
            b: &self.b,
            n_seen: self.n_seen,
            last_leverage: self.last_leverage,
            regret_term: self.regret_term,
            noise: &self.noise,
            noise_rest: &self.noise_rest,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for LinearAwv {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = Stored::deserialize(d)?;
        // The panel storage is allocated only once the packed triangle (already in
        // memory) has the length `r` implies: about the same size.
        if s.ainv.len() as u128 != crate::limits::packed(s.r) {
            return Err(serde::de::Error::custom(format!(
                "A^-1 (packed) has {} entries, {} features need {}",
                s.ainv.len(),
                s.r,
                crate::limits::packed(s.r)
            )));
        }
        let mut e =
            LinearAwv::from_parts(s.r, s.lam, s.ridge, upper::from_packed(&s.ainv, s.r), s.b);
        e.gamma = s.gamma;
        e.n_seen = s.n_seen;
        e.last_leverage = s.last_leverage;
        e.regret_term = s.regret_term;
        e.noise = s.noise;
        e.noise_rest = s.noise_rest;
        Ok(e)
    }
}

impl crate::state::ValidState for LinearAwv {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        ensure(self.k >= 1 && self.k <= outputs::MAX_OUTPUTS, || {
            format!("b has {} values, not a multiple >= 1 of r = {}", self.b.len(), self.r)
        })?;
        within_memory(
            "the AWV state",
            state_doubles(self.r) + outputs::target_doubles(self.r, self.k),
        )?;
        scale("lam", self.lam)?;
        check_gamma(self.gamma)?;
        ensure(self.ainv.len() as u128 == upper::stored_len(self.r), || {
            "A^-1 has the wrong length".into()
        })?;
        len_is("b", self.b.len(), product("b", self.r, self.k)?)?;
        let tri = self.ainv_packed();
        finite("A^-1", &tri)?;
        finite("b", &self.b)?;
        // A^-1 is positive definite: its diagonal is positive.
        ensure((0..self.r).all(|j| tri[j * (j + 1) / 2 + j] > 0.0), || {
            "A^-1 has a diagonal entry <= 0".into()
        })?;
        ensure(!self.last_leverage.is_nan() && !self.regret_term.is_nan(), || {
            "a diagnostic is NaN".into()
        })?;
        self.noise.validate()?;
        self.noise_rest.validate(self.k)
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("lam", &self.lam, &fresh.lam)?;
        crate::state::same("ridge", &self.ridge, &fresh.ridge)?;
        crate::state::same("gamma", &self.gamma, &fresh.gamma)
    }
}
