//! Runs the command under test once: in the test file's folder, stdin null,
//! `NO_COLOR=1`, output captured, killed after a time limit so a hang is a
//! failure rather than a stuck test run.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What one run of the command did.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The exit code; `None` when a signal ended it.
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `binary args...` in `dir`. `Err` says why it could not run or finish.
pub(crate) fn run(
    binary: &Path,
    args: &[String],
    dir: &Path,
    timeout: Duration,
) -> Result<Outcome, String> {
    let mut child = spawn(binary, args, dir)
        .map_err(|e| format!("cannot start `{}`: {e}", binary.display()))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let code = wait(&mut child, timeout).map_err(|e| match e {
        Wait::TimedOut => format!("timed out after {} s (killed)", timeout.as_secs_f32()),
        Wait::Failed(e) => format!("cannot wait for `{}`: {e}", binary.display()),
    })?;
    Ok(Outcome {
        code,
        stdout: join(stdout),
        stderr: join(stderr),
    })
}

/// Starts the command, retrying while Linux says "text file busy": a
/// program written just before (a freshly linked binary, a test's script)
/// can be briefly held open by a process forked on another thread.
fn spawn(binary: &Path, args: &[String], dir: &Path) -> std::io::Result<Child> {
    const TEXT_FILE_BUSY: i32 = 26;
    let mut tries = 0;
    loop {
        let started = Command::new(binary)
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        match started {
            Err(e) if e.raw_os_error() == Some(TEXT_FILE_BUSY) && tries < 100 => {
                tries += 1;
                thread::sleep(Duration::from_millis(10));
            }
            started => return started,
        }
    }
}

enum Wait {
    TimedOut,
    Failed(std::io::Error),
}

fn wait(child: &mut Child, timeout: Duration) -> Result<Option<i32>, Wait> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait().map_err(Wait::Failed)? {
            return Ok(status.code());
        }
        if Instant::now() >= deadline {
            // The readers are left behind: a grandchild may still hold the
            // pipes open, and joining them could hang the harness itself.
            let _ = child.kill();
            let _ = child.wait();
            return Err(Wait::TimedOut);
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Reads a pipe to its end on a thread, so a full stderr pipe cannot block
/// the child while we wait on stdout.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn join(reader: JoinHandle<Vec<u8>>) -> String {
    String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout_ms: u64) -> Result<Outcome, String> {
        let args = vec!["-c".to_string(), script.to_string()];
        run(
            Path::new("/bin/sh"),
            &args,
            Path::new("/"),
            Duration::from_millis(timeout_ms),
        )
    }

    #[test]
    fn captures_both_streams_exit_code_folder_and_no_color() {
        let outcome = sh(
            r#"pwd; echo "no_color=$NO_COLOR" >&2; read x || echo eof >&2; exit 3"#,
            10_000,
        )
        .unwrap();
        assert_eq!((outcome.code, outcome.stdout.as_str()), (Some(3), "/\n"));
        assert_eq!(outcome.stderr, "no_color=1\neof\n");
    }

    #[test]
    fn a_hang_is_killed() {
        let started = Instant::now();
        let error = sh("exec sleep 30", 300).unwrap_err();
        assert_eq!(error, "timed out after 0.3 s (killed)");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_binary_is_reported() {
        let error = run(
            Path::new("/no/such/binary"),
            &[],
            Path::new("/"),
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(
            error.starts_with("cannot start `/no/such/binary`"),
            "{error}"
        );
    }
}
