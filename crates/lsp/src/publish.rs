//! The publisher: a thread of its own that turns each analysis's
//! diagnostics into `publishDiagnostics` notifications and sends them, in
//! the order the main loop asks, so a request that arrives while thousands
//! of diagnostics are converted is answered at once. It never checks and
//! never decides what to publish (the main loop does), and it hands each
//! analysis back to the main loop to be freed there: freeing beside the
//! checker, which allocates meanwhile, makes checking 2-3x slower.

use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use diag::FileId;
use lsp_server::{Message, Notification};
use lsp_types as lsp;
use lsp_types::notification::{Notification as _, PublishDiagnostics};

use crate::handlers;
use crate::ide::Analysis;

/// One document's diagnostics to publish: its file in the analysis (`None`
/// clears them, for a closed or unknown document) and its version.
pub struct Doc {
    pub uri: lsp::Uri,
    pub file: Option<FileId>,
    pub version: Option<i32>,
}

/// One publication: the documents of one analysis.
struct Job {
    analysis: Arc<Analysis>,
    docs: Vec<Doc>,
}

/// The publisher thread and the channels to it and back.
pub struct Publisher {
    jobs: Option<Sender<Job>>,
    done: Receiver<Arc<Analysis>>,
    thread: Option<JoinHandle<()>>,
}

impl Publisher {
    /// Starts the thread; it sends on `sender`.
    pub fn start(sender: Sender<Message>) -> Publisher {
        let (jobs, inbox) = crossbeam_channel::unbounded::<Job>();
        let (finished, done) = crossbeam_channel::unbounded();
        let thread = std::thread::Builder::new()
            .name("publish diagnostics".into())
            .spawn(move || {
                for job in inbox {
                    publish(&sender, &job);
                    // The main loop may be gone at the end: then it is freed here.
                    let _ = finished.send(job.analysis);
                }
            })
            .expect("a thread for publishing diagnostics");
        Publisher {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        }
    }

    /// Publishes `docs`' diagnostics from `analysis`, after every earlier
    /// publication.
    pub fn publish(&self, analysis: Arc<Analysis>, docs: Vec<Doc>) {
        if let Some(jobs) = &self.jobs {
            // The thread ends only when `jobs` is dropped.
            let _ = jobs.send(Job { analysis, docs });
        }
    }

    /// Frees, on this thread, the analyses the publisher is done with.
    pub fn free_finished(&self) {
        for analysis in self.done.try_iter() {
            drop(analysis);
        }
    }
}

impl Drop for Publisher {
    /// Sends what is queued, then ends the thread: nothing asked for is lost
    /// when the server stops.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.free_finished();
    }
}

fn publish(sender: &Sender<Message>, job: &Job) {
    for doc in &job.docs {
        let diagnostics = doc
            .file
            .map(|file| handlers::diagnostics(&job.analysis, file))
            .unwrap_or_default();
        let params = lsp::PublishDiagnosticsParams {
            uri: doc.uri.clone(),
            diagnostics,
            version: doc.version,
        };
        let note = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
        // A closed channel means the client is gone.
        let _ = sender.send(note.into());
    }
}
