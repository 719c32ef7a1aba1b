//! What the language server's benchmarks share: waiting for a message, and
//! removing their temporary folder (the library files in it are read-only).

use std::path::Path;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message};

/// Waits up to `limit` for a message `found` accepts; `false` on a timeout.
pub fn wait_for(
    conn: &Connection,
    limit: Duration,
    mut found: impl FnMut(&Message) -> bool,
) -> bool {
    let end = Instant::now() + limit;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match conn.receiver.recv_timeout(left) {
            Ok(message) if found(&message) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// Removes `dir`, whose `library` folder the server made read-only.
pub fn remove_dir(dir: &Path) {
    for entry in std::fs::read_dir(dir.join("library"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let mut permissions = entry.metadata().expect("metadata").permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        let _ = std::fs::set_permissions(entry.path(), permissions);
    }
    let _ = std::fs::remove_dir_all(dir);
}
