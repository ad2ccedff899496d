//! Deadlines on the answers a long-lived front end owes: `serve`'s decisions, the MCP
//! gateway's `tools/call`s and `check --jsonl`'s lines.
//!
//! The hard question: what if the thread that decides stalls (a hung file system, a lock)?
//! The reader registers each request as it arrives ([`Owed::owe`]); a watchdog thread answers
//! any request still owed after the deadline with a deny that names what wicket was doing,
//! oldest first, and the deciding thread, when it comes back, finds that request
//! [settled](Owed::settle) already and does not answer (or act on) it again. Time a person
//! spends answering a question does not count ([`Owed::pause`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A request the watchdog may have to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket(u64);

/// The requests owed an answer, and the watchdog that answers them when they are late.
///
/// `T` is what the watchdog needs to answer (a JSON-RPC id, a line number); `S` is where
/// answers go when their order matters (`check --jsonl`), written under the same lock by
/// both sides, or `()` when answers carry an id.
pub struct Owed<T, S = ()> {
    shared: Arc<Shared<T, S>>,
}

struct Shared<T, S> {
    state: Mutex<State<T, S>>,
    wake: Condvar,
    limit: Duration,
    /// How often the watchdog woke up (tests: a stream must not wake it once per request).
    #[cfg(test)]
    wakes: std::sync::atomic::AtomicU64,
}

struct State<T, S> {
    next: u64,
    waiting: BTreeMap<u64, Entry<T>>,
    /// What the deciding thread is doing, for the late answer's reason.
    stage: &'static str,
    /// Since when a person is being asked (the clocks stand still meanwhile).
    paused: Option<Instant>,
    sink: S,
    closed: bool,
}

struct Entry<T> {
    /// Taken by the watchdog when it answers.
    what: Option<T>,
    since: Instant,
    /// The watchdog's reason, once it answered.
    late: Option<String>,
}

impl<T: Send + 'static, S: Send + 'static> Owed<T, S> {
    /// Start the watchdog: `late(sink, what, reason)` answers a request not settled within
    /// `limit` of its arrival.
    pub fn start(limit: Duration, sink: S, late: impl FnMut(&mut S, T, &str) + Send + 'static) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                next: 0,
                waiting: BTreeMap::new(),
                stage: "starting",
                paused: None,
                sink,
                closed: false,
            }),
            wake: Condvar::new(),
            limit,
            #[cfg(test)]
            wakes: std::sync::atomic::AtomicU64::new(0),
        });
        let watched = Arc::clone(&shared);
        // No thread, no deadline: the front end then answers as it always did (in time or not).
        let spawned = std::thread::Builder::new().name("wicket-deadline".into()).spawn(move || watch(&watched, late));
        if let Err(e) = spawned {
            eprintln!("wicket: cannot start the deadline's thread: {e}");
        }
        Owed { shared }
    }
}

impl<T, S> Owed<T, S> {
    fn lock(&self) -> MutexGuard<'_, State<T, S>> {
        // A panic elsewhere while holding it leaves valid data: keep using it.
        self.shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A request arrived: its clock starts now.
    pub fn owe(&self, what: T) -> Ticket {
        let mut s = self.lock();
        let t = s.next;
        s.next += 1;
        s.waiting.insert(t, Entry { what: Some(what), since: Instant::now(), late: None });
        // The watchdog is not woken: it never sleeps past `limit` from when it last looked
        // (see `watch`), and a request owed since then is due no earlier than that, so a
        // stream of requests costs it no wake-up per request.
        Ticket(t)
    }

    /// Several requests arrived together (the lines of one read): their clocks start now,
    /// under one lock; their tickets in order.
    pub fn owe_all(&self, whats: impl IntoIterator<Item = T>) -> Vec<Ticket> {
        let mut s = self.lock();
        let since = Instant::now();
        whats
            .into_iter()
            .map(|what| {
                let t = s.next;
                s.next += 1;
                s.waiting.insert(t, Entry { what: Some(what), since, late: None });
                Ticket(t)
            })
            .collect()
    }

    /// Say what the deciding thread does next.
    pub fn stage(&self, what: &'static str) {
        self.lock().stage = what;
    }

    /// A person is being asked: no clock runs until [`Owed::resume`] (their time is bounded
    /// by the approval timeout, not by this deadline).
    pub fn pause(&self) {
        let mut s = self.lock();
        if s.paused.is_none() {
            s.paused = Some(Instant::now());
        }
    }

    /// The person answered: the clocks go on where they stopped.
    pub fn resume(&self) {
        let mut s = self.lock();
        if let Some(p) = s.paused.take() {
            let now = Instant::now();
            // Only the part of the pause after the request arrived stood its clock still.
            for e in s.waiting.values_mut() {
                e.since += now.saturating_duration_since(p.max(e.since));
            }
        }
        drop(s);
        self.shared.wake.notify_all();
    }

    /// The watchdog's reason when it answered this request already.
    pub fn late(&self, t: Ticket) -> Option<String> {
        self.lock().waiting.get(&t.0).and_then(|e| e.late.clone())
    }

    /// The deciding thread answers: `answer` runs (under the lock, so answers keep their
    /// order) unless the watchdog answered first, which gives its reason. Either way the
    /// request is no longer owed.
    pub fn settle<R>(&self, t: Ticket, answer: impl FnOnce(&mut S) -> R) -> Result<R, String> {
        let mut s = self.lock();
        match s.waiting.remove(&t.0) {
            Some(Entry { late: Some(why), .. }) => Err(why),
            Some(_) => Ok(answer(&mut s.sink)),
            None => Err("the request was answered already".to_string()),
        }
    }

    /// Use the sink outside an answer (a flush).
    pub fn with_sink<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut self.lock().sink)
    }
}

impl<T, S> Drop for Owed<T, S> {
    fn drop(&mut self) {
        self.lock().closed = true;
        self.shared.wake.notify_all();
    }
}

/// The watchdog: sleep until the oldest owed request is due, answer it if still owed. With
/// nothing owed it still looks again after `limit` (so [`Owed::owe`] need not wake it); a
/// request settled in time costs it nothing.
fn watch<T, S>(shared: &Shared<T, S>, mut late: impl FnMut(&mut S, T, &str)) {
    let mut s = shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        if s.closed {
            return;
        }
        let oldest = s.waiting.iter().find(|(_, e)| e.what.is_some()).map(|(t, e)| (*t, e.since));
        let wait = match (oldest, s.paused) {
            (Some((t, since)), None) => {
                let due = since + shared.limit;
                let now = Instant::now();
                if due <= now {
                    let behind = s.waiting.range(..t).next().is_some();
                    let stage = s.stage;
                    let ms = shared.limit.as_millis();
                    let reason = if behind {
                        format!("wicket did not decide within {ms} ms (it was {stage} for an earlier request)")
                    } else {
                        format!("wicket did not decide within {ms} ms (it was {stage})")
                    };
                    let Some(entry) = s.waiting.get_mut(&t) else { continue };
                    let Some(what) = entry.what.take() else { continue };
                    entry.late = Some(reason.clone());
                    late(&mut s.sink, what, &reason);
                    continue;
                }
                Some(due - now)
            }
            (None, None) => Some(shared.limit),
            (_, Some(_)) => None,
        };
        s = match wait {
            Some(d) => shared.wake.wait_timeout(s, d).unwrap_or_else(std::sync::PoisonError::into_inner).0,
            None => shared.wake.wait(s).unwrap_or_else(std::sync::PoisonError::into_inner),
        };
        #[cfg(test)]
        shared.wakes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// The late answers, as the watchdog gave them.
    type Late = mpsc::Receiver<(u32, String)>;

    fn owed(limit_ms: u64) -> (Owed<u32, Vec<u32>>, Late) {
        let (tx, rx) = mpsc::channel();
        let o =
            Owed::start(Duration::from_millis(limit_ms), Vec::new(), move |sink: &mut Vec<u32>, what, why: &str| {
                sink.push(what);
                let _ = tx.send((what, why.to_string()));
            });
        (o, rx)
    }

    #[test]
    fn a_settled_request_is_never_answered_late() {
        let (o, rx) = owed(50);
        let t = o.owe(1);
        assert_eq!(o.settle(t, |sink| sink.push(100)), Ok(()));
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "the watchdog answered a settled request");
        assert_eq!(o.with_sink(|s| s.clone()), vec![100]);
    }

    #[test]
    fn late_requests_are_answered_oldest_first_and_not_again() {
        let (o, rx) = owed(50);
        o.stage("writing the audit line");
        let a = o.owe(1);
        let b = o.owe(2);
        let (first, why) = rx.recv_timeout(Duration::from_secs(10)).expect("no late answer");
        assert_eq!(first, 1);
        assert!(why.contains("writing the audit line") && !why.contains("earlier"), "{why}");
        let (second, why) = rx.recv_timeout(Duration::from_secs(10)).expect("no second late answer");
        assert_eq!(second, 2);
        assert!(why.contains("for an earlier request"), "{why}");
        assert!(o.late(a).is_some_and(|w| w.contains("audit")) && o.late(b).is_some());
        assert!(o.settle(a, |_| ()).is_err(), "a request the deadline answered was answered again");
        assert!(o.settle(b, |_| ()).is_err());
        assert_eq!(o.with_sink(|s| s.clone()), vec![1, 2]);
    }

    #[test]
    fn a_stream_settled_in_time_does_not_wake_the_watchdog_per_request() {
        let (o, rx) = owed(10_000);
        // Let the watchdog reach its first wait, so each later wake-up is counted.
        std::thread::sleep(Duration::from_millis(50));
        let before = o.shared.wakes.load(std::sync::atomic::Ordering::Relaxed);
        // Each request is decided a moment after it arrives, as a stream's are.
        for n in 0..100 {
            let t = o.owe(n);
            std::thread::sleep(Duration::from_millis(1));
            assert_eq!(o.settle(t, |_| ()), Ok(()));
        }
        for _ in 0..100 {
            let tickets = o.owe_all(0..3);
            std::thread::sleep(Duration::from_millis(1));
            for t in tickets {
                assert_eq!(o.settle(t, |_| ()), Ok(()));
            }
        }
        let woke = o.shared.wakes.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert!(woke <= 2, "the watchdog woke {woke} times for 400 requests settled in time");
        assert!(rx.try_recv().is_err(), "a request settled in time was answered late");
    }

    #[test]
    fn a_request_owed_while_the_watchdog_idles_is_still_answered_at_its_deadline() {
        let (o, rx) = owed(100);
        // Nothing is owed for longer than the limit: the watchdog idles, and is not woken.
        std::thread::sleep(Duration::from_millis(250));
        let t = o.owe(9);
        let (what, _) = rx.recv_timeout(Duration::from_secs(10)).expect("no late answer");
        assert_eq!(what, 9);
        assert!(o.late(t).is_some());
    }

    #[test]
    fn a_person_asked_stops_the_clocks() {
        let (o, rx) = owed(100);
        o.pause();
        let t = o.owe(7);
        assert!(rx.recv_timeout(Duration::from_millis(400)).is_err(), "the clock ran while a person was asked");
        o.resume();
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).map(|(w, _)| w).ok(), Some(7));
        assert!(o.late(t).is_some());
    }
}
