//! The methods the bounded and unbounded halves share (the same code and
//! documentation for both, as in tokio): receiving, the sender methods that
//! do not depend on capacity, and weak senders.

macro_rules! rx_methods {
    () => {
        /// Receives the next value, or `None` once the channel is closed
        /// (all senders dropped, or [`close`](Self::close) called) and every
        /// value sent before has been received.
        ///
        /// # Cancel safety
        ///
        /// This method is cancel safe: if `recv` is used as the event in a
        /// `select!` and another branch completes first, no value was
        /// taken from the channel.
        pub async fn recv(&mut self) -> Option<T> {
            #[cfg(feature = "tracing")]
            {
                // tokio-console's async op: on the channel's resource.
                let chan = self.rx.chan.clone();
                let recv = std::future::poll_fn(|cx| self.poll_recv(cx));
                volt_sync::trace::async_op(&chan.resource, "Receiver::recv", "poll_recv", recv)
                    .await
            }
            #[cfg(not(feature = "tracing"))]
            std::future::poll_fn(|cx| self.poll_recv(cx)).await
        }

        /// Receives up to `limit` values into `buffer` (waiting for at least
        /// one) and returns how many. Returns 0 only when `limit` is 0 or
        /// the channel is closed and empty.
        ///
        /// # Cancel safety
        ///
        /// This method is cancel safe.
        pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            std::future::poll_fn(|cx| self.poll_recv_many(cx, buffer, limit)).await
        }

        /// Receives a value if one is ready.
        #[inline]
        pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
            self.rx.try_recv().map_err(|finished| {
                if finished {
                    TryRecvError::Disconnected
                } else {
                    TryRecvError::Empty
                }
            })
        }

        /// Blocking receive, for synchronous code.
        ///
        /// # Panics
        ///
        /// When called from a thread that drives a runtime.
        #[track_caller]
        pub fn blocking_recv(&mut self) -> Option<T> {
            crate::bridge::block_on(self.recv())
        }

        /// Blocking `recv_many`, for synchronous code.
        ///
        /// # Panics
        ///
        /// When called from a thread that drives a runtime.
        #[track_caller]
        pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            crate::bridge::block_on(self.recv_many(buffer, limit))
        }

        /// Closes the receiving half without dropping it: sends fail from
        /// now on, while permits already reserved may still send and
        /// values already sent can still be received.
        pub fn close(&mut self) {
            self.rx.chan.close();
        }

        /// Whether the channel is closed (all senders dropped, or `close`
        /// called).
        pub fn is_closed(&self) -> bool {
            self.rx.chan.rx_is_closed()
        }

        /// Whether no value is waiting to be received.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        /// Number of values waiting to be received.
        pub fn len(&self) -> usize {
            self.rx.chan.len()
        }

        /// Polls for the next value (see [`recv`](Self::recv)).
        pub fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<T>> {
            self.rx.poll_recv(cx)
        }

        /// Polls for up to `limit` values (see [`recv_many`](Self::recv_many)).
        pub fn poll_recv_many(
            &mut self,
            cx: &mut std::task::Context<'_>,
            buffer: &mut Vec<T>,
            limit: usize,
        ) -> std::task::Poll<usize> {
            self.rx.poll_recv_many(cx, buffer, limit)
        }

        /// Number of live strong senders.
        pub fn sender_strong_count(&self) -> usize {
            self.rx.sender_strong_count()
        }

        /// Number of live weak senders.
        pub fn sender_weak_count(&self) -> usize {
            self.rx.sender_weak_count()
        }
    };
}

/// Sender methods shared by `Sender` and `UnboundedSender`; `$weak` is the
/// matching weak sender type.
macro_rules! tx_methods {
    ($weak:ident) => {
        /// Waits until the receiver is closed or dropped.
        ///
        /// # Cancel safety
        ///
        /// This method is cancel safe.
        pub async fn closed(&self) {
            self.tx.chan.closed().await
        }

        /// Whether the receiver is closed or dropped.
        pub fn is_closed(&self) -> bool {
            self.tx.chan.is_rx_closed()
        }

        /// A weak sender: it does not keep the channel open.
        pub fn downgrade(&self) -> $weak<T> {
            $weak {
                tx: self.tx.downgrade(),
            }
        }

        /// Whether both senders belong to the same channel.
        pub fn same_channel(&self, other: &Self) -> bool {
            self.tx.same_channel(&other.tx)
        }

        /// Number of strong senders.
        pub fn strong_count(&self) -> usize {
            self.tx.strong_count()
        }

        /// Number of weak senders.
        pub fn weak_count(&self) -> usize {
            self.tx.weak_count()
        }
    };
}

/// A weak sender type for the strong sender `$strong`, with its methods
/// and `Clone`.
macro_rules! weak_sender {
    ($(#[$doc:meta])* $weak:ident, $strong:ident) => {
        $(#[$doc])*
        pub struct $weak<T> {
            tx: super::handle::WeakTx<T>,
        }

        impl<T> $weak<T> {
            /// A strong sender, unless every strong sender is gone.
            pub fn upgrade(&self) -> Option<$strong<T>> {
                self.tx.upgrade().map(|tx| $strong { tx })
            }

            /// Number of strong senders.
            pub fn strong_count(&self) -> usize {
                self.tx.strong_count()
            }

            /// Number of weak senders.
            pub fn weak_count(&self) -> usize {
                self.tx.weak_count()
            }
        }

        impl<T> Clone for $weak<T> {
            fn clone(&self) -> Self {
                $weak {
                    tx: self.tx.clone(),
                }
            }
        }
    };
}

pub(super) use {rx_methods, tx_methods, weak_sender};
