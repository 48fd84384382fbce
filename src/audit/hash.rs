//! SHA-256 of content as it streams past, so that a fix hashes what it reads and what it writes
//! in the one pass it makes anyway, and an undo hashes the file it checks while it rebuilds it.
//! Nothing is ever reread to be hashed.

use std::io::{self, Read, Write};

use sha2::{Digest, Sha256};

use super::record::{Checksum, Fingerprint};

/// Hashes bytes given piece by piece, and counts them.
#[derive(Clone, Default)]
pub(crate) struct ContentHasher {
    sha256: Sha256,
    bytes: u64,
}

impl ContentHasher {
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.sha256.update(bytes);
        self.bytes += bytes.len() as u64;
    }

    /// How many bytes were given so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Size and hash of everything given so far.
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            bytes: self.bytes,
            sha256: Checksum(self.sha256.clone().finalize().into()),
        }
    }
}

/// A reader or a writer that hashes every byte that passes through it.
pub struct Hashing<T> {
    inner: T,
    hasher: ContentHasher,
}

impl<T> Hashing<T> {
    pub(crate) fn new(inner: T) -> Hashing<T> {
        Hashing {
            inner,
            hasher: ContentHasher::default(),
        }
    }

    /// Size and hash of what has passed through so far.
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        self.hasher.fingerprint()
    }

    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.hasher.update(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.hasher.update(&buf[..read]);
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-256 of "abc", from FIPS 180-2.
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn writes_and_reads_hash_what_passed() {
        let mut writer = Hashing::new(Vec::new());
        writer.write_all(b"a").unwrap();
        writer.write_all(b"bc").unwrap();
        assert_eq!(writer.fingerprint().sha256.to_string(), ABC);
        assert_eq!(writer.fingerprint().bytes, 3);
        assert_eq!(writer.into_inner(), b"abc");

        let mut reader = Hashing::new(&b"abc"[..]);
        let mut first = [0u8; 1];
        reader.read_exact(&mut first).unwrap();
        io::copy(&mut reader, &mut io::sink()).unwrap();
        assert_eq!(reader.fingerprint().sha256.to_string(), ABC);
    }

    #[test]
    fn nothing_hashes_to_the_empty_digest() {
        let empty = ContentHasher::default().fingerprint();
        assert_eq!(empty.bytes, 0);
        assert_eq!(
            empty.sha256.to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
