//! Applies a served write plan to a World (owned by the write side; this
//! first version only fixes the signature and refuses every write).

use crate::engine::{Answer, Call, Engine, Generator, Params, World};
use crate::state::WritePlan;

/// Applies one write plan to `world` and answers as the recording would.
/// Must leave `world` unchanged unless it answers `applied: Yes`.
pub(crate) fn apply_write(
    _engine: &Engine,
    plan: &WritePlan,
    _world: &mut World,
    _call: &Call,
    _params: &Params,
    _gen: &mut dyn Generator,
) -> Answer {
    Answer::error(
        501,
        "write_not_served",
        &format!("writes of `{}` ({}) are not modelled yet", plan.tool, plan.effect),
        Some(&plan.tool),
        None,
    )
}
