//! NCCL without a GPU: the library from the `nvidia-nccl-cu12` wheel in
//! the repository's `.venv` (scripts/test installs it, pinned in
//! requirements-test.txt) loads, binds every entry point the run uses,
//! reports its version, and the unique-id bootstrap gives every rank
//! rank 0's id (`ncclGetUniqueId` needs no GPU; joining a communicator
//! does, and is left to a GPU machine).

use sexpgpu_dist::nccl::{self, Nccl, UNIQUE_ID_BYTES};
use std::path::PathBuf;

fn wheel() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv");
    let found = nccl::wheel_libs(&venv);
    assert!(
        !found.is_empty(),
        "NCCL is missing: {} has no nvidia-nccl-cu12 wheel (scripts/test installs requirements-test.txt)",
        venv.display()
    );
    found[0].clone()
}

#[test]
fn the_wheel_loads_and_binds() {
    let nccl = Nccl::load(&[wheel()]).expect("NCCL loads and binds");
    let version = nccl.version().expect("a version");
    assert!(version.starts_with("2."), "{version}");
}

#[test]
fn every_rank_gets_rank_zeros_unique_id() {
    let nccl = Nccl::load(&[wheel()]).expect("NCCL loads");
    // A broadcast over a channel: rank 0's bytes reach the others.
    let mut sent: Option<Vec<u8>> = None;
    let mut broadcast = |bytes: &mut Vec<u8>| -> Result<(), String> {
        match &sent {
            None => sent = Some(bytes.clone()),
            Some(zero) => *bytes = zero.clone(),
        }
        Ok(())
    };
    let ids: Vec<Vec<u8>> = (0..3)
        .map(|rank| nccl::id_bytes(&nccl.bootstrap(rank, &mut broadcast).expect("an id")))
        .collect();
    assert_eq!(ids[0].len(), UNIQUE_ID_BYTES);
    assert!(ids[0].iter().any(|&b| b != 0), "an empty unique id");
    assert!(ids.iter().all(|id| *id == ids[0]));
    // A fresh id differs: each job gets its own.
    assert_ne!(nccl::id_bytes(&nccl.unique_id().expect("an id")), ids[0]);
    // A broadcast that loses bytes is an error, not a wrong id.
    let mut short = |bytes: &mut Vec<u8>| -> Result<(), String> {
        bytes.truncate(100);
        Ok(())
    };
    let e = nccl.bootstrap(0, &mut short).expect_err("a short id");
    assert!(e.contains("100 bytes"), "{e}");
}
