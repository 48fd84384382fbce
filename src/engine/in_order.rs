//! Work spread over the thread pool and handed back in order: the blocks of an input, the
//! files of a tree. The pool processes items as its threads come free; one thread takes each
//! result in the items' order, as soon as it and every one before it are done, and consumes it
//! (writes it, adds it up) while the pool goes on.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError, mpsc};
use std::time::Duration;

/// Runs `process` on each of `items` on the thread pool and hands each result to `consume` on
/// this thread, in the order of the items, as soon as it and all before it are done; at most
/// `per_thread` items per thread are taken from `items` ahead of the one consumed, which bounds
/// memory (and lets `items` be a stream, such as a channel filled by another thread). Consuming
/// (writing, merging) goes on while the pool processes the next items: no barrier between the
/// two. An error (or a panic) is returned in its turn, after the results before it are
/// consumed: then nothing more is started, and it is returned once the items under way are
/// done.
///
/// Each result waits in a slot of its own, one per item that may be under way, made once by
/// this thread; the pool's threads say only which item is done. So handing a result over
/// allocates nothing that this thread frees: glibc's allocator takes a lock on a thread's heap
/// to free what another allocated there, and a tree of small files would take it per file.
pub(crate) fn in_order_in_parallel<I: Send, T: Send, E: Send>(
    items: impl IntoIterator<Item = I>,
    per_thread: usize,
    process: impl Fn(I) -> Result<T, E> + Sync,
    mut consume: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let ahead = per_thread.max(1) * rayon::current_num_threads().max(1);
    type Outcome<T, E> = std::thread::Result<Result<T, E>>;
    // Items `next..next + ahead` are the only ones under way: each has the slot of its index
    // modulo `ahead` to itself.
    let slots: Vec<Mutex<Option<Outcome<T, E>>>> = (0..ahead).map(|_| Mutex::new(None)).collect();
    let slots = &slots;
    let (finished, done) = mpsc::channel::<()>();
    let process = &process;
    let mut items = items.into_iter().fuse();
    rayon::in_place_scope(|scope| {
        let mut started = 0;
        for next in 0.. {
            while started < next + ahead
                && let Some(item) = items.next()
            {
                let slot = &slots[started % ahead];
                let finished = finished.clone();
                scope.spawn(move |_| {
                    // A panic is handed on too, so that this thread never waits for a result
                    // that will not come; it is resumed there. The receiver lives until the
                    // scope ends, so the send cannot fail.
                    let outcome = panic::catch_unwind(AssertUnwindSafe(|| process(item)));
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
                    let _ = finished.send(());
                });
                started += 1;
            }
            if next == started {
                break;
            }
            let outcome = loop {
                let slot = slots[next % ahead].lock();
                if let Some(outcome) = slot.unwrap_or_else(PoisonError::into_inner).take() {
                    break outcome;
                }
                next_notice(&done);
            };
            // The notices of the results already in their slots woke nobody: dropped, they do
            // not pile up over a run of millions of items (a slot is looked at before each
            // wait, so none is missed).
            while done.try_recv().is_ok() {}
            match outcome {
                Ok(Ok(result)) => consume(result)?,
                Ok(Err(error)) => return Err(error),
                Err(payload) => panic::resume_unwind(payload),
            }
        }
        Ok(())
    })
}

/// The next notice sent to `notices`, waited for without starving the pool: on one of its
/// threads (files fixed in parallel), the wait runs queued tasks, which may be the very blocks
/// awaited, instead of blocking a thread they need. `None` when nothing came yet.
fn next_notice<M>(notices: &mpsc::Receiver<M>) -> Option<M> {
    if let Ok(message) = notices.try_recv() {
        return Some(message);
    }
    match rayon::yield_now() {
        Some(rayon::Yield::Executed) => None,
        // Every queued task is taken: the awaited ones are running on other threads.
        Some(rayon::Yield::Idle) => notices.recv_timeout(Duration::from_millis(1)).ok(),
        // Not a pool thread: blocking takes no thread from the pool.
        None => notices.recv().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`in_order_in_parallel`] of `items` on a pool of two threads (as the machines this runs
    /// on have), each result pushed onto `consumed`.
    fn run<I: Send, T: Send, E: Send>(
        items: impl IntoIterator<Item = I> + Send,
        per_thread: usize,
        process: impl Fn(I) -> Result<T, E> + Send + Sync,
        consumed: &mut Vec<T>,
    ) -> Result<(), E> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build();
        pool.expect("a pool").install(|| {
            in_order_in_parallel(items, per_thread, process, |result| {
                consumed.push(result);
                Ok(())
            })
        })
    }

    /// Items done in any order (the later ones first, here) are consumed in theirs, and the
    /// slots are used again and again: far more items than are under way at once.
    #[test]
    fn results_are_consumed_in_the_items_order() {
        let mut consumed = Vec::new();
        let process = |i: u64| {
            std::thread::sleep(Duration::from_micros((500 - i) % 7 * 50));
            Ok::<_, ()>(i * 2)
        };
        assert_eq!(run(0..500, 2, process, &mut consumed), Ok(()));
        assert_eq!(consumed, (0..500).map(|i| i * 2).collect::<Vec<_>>());
    }

    /// An error comes in its turn: every result before it is consumed, none after it.
    #[test]
    fn an_error_is_returned_in_its_turn() {
        let mut consumed = Vec::new();
        let process = |i: u32| match i {
            // The error is ready long before the items just before it.
            40 => Err(format!("item {i}")),
            30..40 => {
                std::thread::sleep(Duration::from_millis(2));
                Ok(i)
            }
            i => Ok(i),
        };
        let done = run(0..100, 4, process, &mut consumed);
        assert_eq!(done, Err("item 40".to_owned()));
        assert_eq!(consumed, (0..40).collect::<Vec<_>>());
    }

    /// A panic on a pool thread is resumed on the consuming one, in its turn.
    #[test]
    fn a_panic_is_resumed_where_results_are_consumed() {
        let mut consumed = Vec::new();
        let process = |i: u32| match i {
            7 => panic!("item 7"),
            i => Ok::<_, ()>(i),
        };
        let caught =
            panic::catch_unwind(AssertUnwindSafe(|| run(0..20, 2, process, &mut consumed)));
        let payload = caught.expect_err("the panic comes through");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"item 7"));
        assert_eq!(consumed, (0..7).collect::<Vec<_>>());
    }
}
