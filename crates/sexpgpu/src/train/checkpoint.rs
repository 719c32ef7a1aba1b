//! Checkpoints as safetensors bytes: parameters as `param/<name>`,
//! optimizer state as `opt/<path>`, the model's buffers as
//! `buffer/<name>`, and metadata with the step (which also
//! fixes the data position: batch `step` is next) and the seed. Decoding
//! checks every tensor against the run's step graph. No files here.

use super::step::{Slot, StepGraph};
use crate::data;
use sexpgpu_graph::Tensor;
use std::collections::HashMap;

/// What a run carries from step to step.
pub struct Checkpoint {
    pub params: Vec<Tensor>,
    /// The optimizer's state.
    pub state: Vec<Tensor>,
    /// The model's buffers.
    pub buffers: Vec<Tensor>,
    /// Steps done; the next batch is number `step` (from 0).
    pub step: u64,
}

const FORMAT: &str = "sexpgpu-checkpoint-1";

pub fn encode(c: &Checkpoint, step: &StepGraph, seed: u64) -> Result<Vec<u8>, String> {
    let mut named: Vec<(String, &Tensor)> = Vec::new();
    for (slot, t) in step.params.iter().zip(&c.params) {
        named.push((format!("param/{}", slot.name), t));
    }
    for (slot, t) in step.state.iter().zip(&c.state) {
        named.push((format!("opt/{}", slot.name), t));
    }
    for (slot, t) in step.buffers.iter().zip(&c.buffers) {
        named.push((format!("buffer/{}", slot.name), t));
    }
    let metadata = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("step".to_string(), c.step.to_string()),
        ("seed".to_string(), seed.to_string()),
        ("data_batches_consumed".to_string(), c.step.to_string()),
    ]);
    data::encode(&named, metadata)
}

pub fn decode(bytes: &[u8], step: &StepGraph) -> Result<Checkpoint, String> {
    let (tensors, metadata) = data::decode(bytes)?;
    let done = check_metadata(&metadata)?;
    let take = |prefix: &str, slots: &[Slot]| -> Result<Vec<Tensor>, String> {
        slots
            .iter()
            .map(|slot| {
                let name = format!("{prefix}/{}", slot.name);
                let t = tensors
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| t.clone())
                    .ok_or_else(|| format!("it has no tensor `{name}`"))?;
                if t.shape() != &slot.shape || t.dtype() != slot.dtype {
                    return Err(format!(
                        "`{name}` is {} {} there but {} {} in the run",
                        t.shape(),
                        t.dtype(),
                        slot.shape,
                        slot.dtype
                    ));
                }
                Ok(t)
            })
            .collect()
    };
    Ok(Checkpoint {
        params: take("param", &step.params)?,
        state: take("opt", &step.state)?,
        buffers: take("buffer", &step.buffers)?,
        step: done,
    })
}

/// The step a checkpoint's metadata records, after its `format`: each
/// missing, or present and invalid, is said as it is.
fn check_metadata(metadata: &HashMap<String, String>) -> Result<u64, String> {
    match metadata.get("format") {
        None => {
            return Err("it is not a SexpGPU checkpoint (no `format` metadata)".to_string());
        }
        Some(format) if format != FORMAT => {
            return Err(format!(
                "its `format` metadata is {format:?}, not {FORMAT:?}: it is not a checkpoint this version of SexpGPU reads"
            ));
        }
        Some(_) => {}
    }
    let step = metadata
        .get("step")
        .ok_or("its `step` metadata is missing")?;
    step.parse().map_err(|_| {
        format!("its `step` metadata is invalid: {step:?} is not a whole number of steps")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn metadata_missing_and_invalid_are_told_apart() {
        let check = |pairs: &[(&str, &str)]| check_metadata(&metadata(pairs));
        assert_eq!(check(&[("format", FORMAT), ("step", "12")]), Ok(12));
        assert_eq!(
            check(&[("step", "12")]).unwrap_err(),
            "it is not a SexpGPU checkpoint (no `format` metadata)"
        );
        assert_eq!(
            check(&[("format", "sexpgpu-checkpoint-0"), ("step", "12")]).unwrap_err(),
            "its `format` metadata is \"sexpgpu-checkpoint-0\", not \"sexpgpu-checkpoint-1\": it is not a checkpoint this version of SexpGPU reads"
        );
        assert_eq!(
            check(&[("format", FORMAT)]).unwrap_err(),
            "its `step` metadata is missing"
        );
        assert_eq!(
            check(&[("format", FORMAT), ("step", "-3")]).unwrap_err(),
            "its `step` metadata is invalid: \"-3\" is not a whole number of steps"
        );
    }
}
