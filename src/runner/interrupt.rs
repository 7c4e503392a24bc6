//! SIGINT and SIGTERM for the whole command. Once the gate listens for them, tokio's handler
//! stays installed for the life of the process: a signal that arrives between two rounds of
//! suites, or while results are read, would otherwise be swallowed. A watcher thread remembers
//! it, so that the next round does not start and nothing is recorded.

use std::sync::Once;
use std::sync::atomic::{AtomicU8, Ordering};

use tokio::signal::unix::{SignalKind, signal};

static RECEIVED: AtomicU8 = AtomicU8::new(0);
static WATCH: Once = Once::new();

const SIGINT: u8 = 1;
const SIGTERM: u8 = 2;

/// The signal that interrupted the gate, if one did since it started listening.
pub fn interrupted() -> Option<&'static str> {
    match RECEIVED.load(Ordering::SeqCst) {
        SIGINT => Some("SIGINT"),
        SIGTERM => Some("SIGTERM"),
        _ => None,
    }
}

/// Start listening (once per process). Returns false when the listener could not start; the
/// default action of the signals (ending the gate) then still applies.
pub(super) fn watch() -> bool {
    let mut started = true;
    WATCH.call_once(|| {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("skillgate-signals".to_owned())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(_) => {
                        let _ = ready_tx.send(false);
                        return;
                    }
                };
                runtime.block_on(async move {
                    let (Ok(mut int), Ok(mut term)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                    ) else {
                        let _ = ready_tx.send(false);
                        return;
                    };
                    let _ = ready_tx.send(true);
                    loop {
                        let received = tokio::select! {
                            _ = int.recv() => SIGINT,
                            _ = term.recv() => SIGTERM,
                        };
                        let _ = RECEIVED.compare_exchange(
                            0,
                            received,
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        );
                    }
                });
            });
        started = spawned.is_ok() && ready_rx.recv().unwrap_or(false);
    });
    started
}
