//! OnlineProjection's state: its format version and the invariants of a decoded state.

use super::{switch_on_index, OnlineProjection};
use crate::bases::design::check_domain;
use crate::bases::Design;
use crate::error::Result;

// The format version of a pickled OnlineProjection: bump it when a serialised field changes.
crate::state::state_version!(OnlineProjection, 4);

impl crate::state::ValidState for OnlineProjection {
    fn validate(&self) -> Result<()> {
        use crate::state::*;
        let Some(st) = &self.state else { return Ok(()) };
        let cfg = &self.cfg;
        let d = st.design.input_dim();
        ensure(d >= 1, || "the input dimension is 0".into())?;
        // Sizes against the stored buffers first (each bounded by the state's length):
        // the checks below build a design from `d`, and `n` bounds the schedule.
        ensure(st.design.sizes_agree(), || format!("the design does not hold {d} coordinates"))?;
        let n = usize::try_from(st.n).map_err(|_| crate::KsError::Input("bad n".into()))?;
        len_is("past targets", st.ys.len(), n)?;
        len_is("past inputs", st.xs.len(), product("past inputs", n, d)?)?;
        same("kappa", &st.kappa, &self.kappa(d))?;
        // The schedule: after round n exactly the units with t_N <= n are on.
        ensure(
            !st.unit_due(cfg)
                && (st.n_units == 0 || switch_on_index(cfg.c, st.kappa, st.n_units) <= st.n as f64),
            || format!("{} units do not follow the schedule at round {n}", st.n_units),
        )?;
        let p = st.p();
        self.check_growth(d, st.n)
            .map_err(|e| crate::KsError::Input(format!("invalid learner state: {e}")))?;
        len_is("G (packed)", st.gram.len(), p.checked_mul(p + 1).map_or(usize::MAX, |v| v / 2))?;
        len_is("r", st.r.len(), p)?;
        let phi_len = if st.ready && p > 0 { p * (p + 1) / 2 } else { 0 };
        len_is("Phi (packed)", st.phi.len(), phi_len)?;
        for (name, v) in [
            ("G", &st.gram),
            ("r", &st.r),
            ("Phi", &st.phi),
            ("theta", &st.theta),
            ("past targets", &st.ys),
        ] {
            finite(name, v)?;
        }
        for row in st.xs.chunks_exact(d) {
            check_domain(&cfg.basis, row)?;
        }
        // The design is a function of (d, configuration, units): rebuild and compare.
        let mut design = Design::new(d, cfg.basis, cfg.additive, cfg.pairs, cfg.prefix_degree)?;
        for _ in 0..st.n_units {
            design.push_unit();
            ensure(design.n_columns() <= p, || "more columns than coefficients".into())?;
        }
        len_is("coefficients", p, design.n_columns())?;
        let same_design = bincode::serialize(&design).ok() == bincode::serialize(&st.design).ok();
        ensure(same_design, || "the active basis does not follow from the configuration".into())
    }
    fn check_config(&self, fresh: &Self) -> Result<()> {
        crate::state::same("configuration", &self.cfg, &fresh.cfg)
    }
}
