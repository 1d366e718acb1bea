use std::fmt;

/// Reads bytes from somewhere.
pub trait Source {
    /// Bytes left to read.
    fn remaining(&self) -> usize;

    /// Whether anything is left.
    fn has_remaining(&self) -> bool {
        self.remaining() > 0
    }
}

/// A growable byte buffer with a read cursor.
pub struct Buffer {
    data: Vec<u8>,
    read: usize,
}

impl Buffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer { data: Vec::new(), read: 0 }
    }

    /// Appends `bytes` at the end.
    pub fn extend(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
    }

    /// Takes the next `n` bytes, or fewer when fewer are left.
    pub fn take(&mut self, n: usize) -> &[u8] {
        let end = (self.read + n).min(self.data.len());
        let taken = &self.data[self.read..end];
        self.read = end;
        taken
    }
}

impl Source for Buffer {
    fn remaining(&self) -> usize {
        self.data.len() - self.read
    }
}

impl fmt::Write for Buffer {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.extend(s.as_bytes());
        Ok(())
    }
}

impl<'a> PartialEq<&'a Buffer> for &'a Buffer {
    fn eq(&self, other: &&'a Buffer) -> bool {
        self.data[self.read..] == other.data[other.read..]
    }
}
