use std::collections::VecDeque;
use std::fmt;

/// A bounded queue that drops the oldest item when full.
pub struct RingQueue<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> RingQueue<T> {
    /// Creates an empty queue holding at most `capacity` items.
    pub fn new(capacity: usize) -> Self {
        Self { items: VecDeque::with_capacity(capacity), capacity }
    }

    /// Adds an item, returning the one dropped to make room, if any.
    pub fn push(&mut self, item: T) -> Option<T> {
        let dropped = if self.items.len() == self.capacity { self.items.pop_front() } else { None };
        self.items.push_back(item);
        dropped
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
}

impl<T: fmt::Debug> fmt::Display for RingQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RingQueue({:?})", self.items)
    }
}

pub mod metrics {
    pub fn utilisation(len: usize, capacity: usize) -> f64 {
        len as f64 / capacity as f64
    }
}
