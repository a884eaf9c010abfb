//! How a future of the lock-free flavors waits ([`poll_wait`]), and leaves.
//!
//! Try the operation; if it cannot complete, register in the side's
//! [`WaitQueue`] (the node is embedded in the future, so waiting allocates
//! nothing), issue `fence(SeqCst)`, and try once more before returning
//! `Pending` (the waiter half of the Dekker protocol in `waiters`). A woken
//! future tries again and re-registers if another task got there first. A
//! future dropped after it was notified, without acting on it, passes the
//! notification on to the next waiter ([`leave_passing_on`]).

use super::waiters::{Node, Place, Polled, WaitQueue};
use crate::bridge::loom::sync::atomic::{Ordering::SeqCst, fence};

use std::pin::Pin;
use std::task::{Context, Poll};

/// Runs `attempt` until it gives a result, waiting in `queue` in between.
///
/// A notification is *used* only when we saw it before our attempt (then
/// the attempt is the one it was for). If we learn that we were notified
/// only while leaving after a success that came from elsewhere (our
/// re-check right after registering), the notification was meant for a
/// value we did not take: we pass it on, or a waiter behind us could sleep
/// next to a value forever.
///
/// `attempt` has one call site (a loop of at most two turns), so the
/// compiler inlines it: this is the path of every `send`/`recv` that does
/// not complete at its first attempt.
#[inline]
pub(super) fn poll_wait<R>(
    queue: &WaitQueue,
    place: &mut Place,
    node: Pin<&Node>,
    cx: &mut Context<'_>,
    mut attempt: impl FnMut() -> Option<R>,
) -> Poll<R> {
    let mut registered = false;
    if *place != Place::None {
        match queue.poll_registered(*place, node, cx.waker()) {
            // Not notified yet: a spurious poll; keep our place.
            Polled::Waiting => return Poll::Pending,
            // Notified, and out of the queue: this attempt uses it.
            Polled::Notified => *place = Place::None,
            // Still registered, waker replaced: look again as right after
            // registering (Dekker: registered; fence; look again).
            Polled::Recheck => {
                registered = true;
                fence(SeqCst);
            }
        }
    }
    loop {
        if let Some(r) = attempt() {
            if registered {
                // Won by the re-check: the success came from elsewhere.
                leave_passing_on(queue, *place, node);
                *place = Place::None;
            }
            return Poll::Ready(r);
        }
        if registered {
            return Poll::Pending;
        }
        *place = queue.register(node, cx.waker());
        registered = true;
        // Dekker: registered; fence; look again.
        fence(SeqCst);
    }
}

/// Leaves `queue`, passing a notification on if we held one we did not use.
#[inline]
pub(super) fn leave_passing_on(queue: &WaitQueue, place: Place, node: Pin<&Node>) {
    // Checked here, inline: every completed future that never waited
    // (nearly all of them) drops through this.
    if place != Place::None && queue.leave(place, node) {
        fence(SeqCst);
        queue.notify_one();
    }
}

/// Wakes every waiter in `queues` after the channel's closed bit was
/// published: the closer's half of Dekker (closed; fence; look at the
/// waiters). A close is rare: it takes the fence rather than lean on
/// each flavor's closing RMW being `SeqCst`.
#[cold]
pub(super) fn wake_all_after_close(queues: &[&WaitQueue]) {
    fence(SeqCst);
    for queue in queues {
        queue.notify_all();
    }
}
