//! Writing a new file in large aligned chunks, from a thread of its own, straight to the disk.
//!
//! `fix` writes every repaired file to a temporary file that it syncs before renaming it into
//! place, so the bytes have to reach the disk before the run is done anyway. Written the usual
//! way, each byte is first copied into the page cache, by the CPU, on the thread that writes;
//! on a two-core machine that copy took longer than the whole scan (a profile of `fix -o`
//! found most of its time in the kernel's copy into fresh page-cache pages). Here the chunks
//! are handed to a thread
//! that writes them with `O_DIRECT`: the disk reads them from our buffer (DMA), the CPU copies
//! nothing, and the thread waits on the disk while the scanner goes on with the next blocks.
//!
//! `O_DIRECT` wants the buffer's address, its length and the file offset aligned to the
//! device's block size; every full chunk is all three ([`ALIGN`] covers every common device).
//! What is not (a file smaller than a chunk, the tail of a file, the rest after a short write)
//! is written through the page cache, by turning `O_DIRECT` off for that write; so is
//! everything on a file system that refuses `O_DIRECT` (tmpfs before Linux 6.6). Mixing the
//! two on ranges that do not overlap is what the kernel supports, and the final `fsync`
//! ([`super::replace::Replacement::commit`]) covers both. Off Linux, every write is buffered.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

/// The alignment of buffers, lengths and offsets for `O_DIRECT`: the largest logical block
/// size of common devices.
const ALIGN: usize = 4096;

/// The size of a chunk: large enough that a direct write keeps the disk busy, small enough
/// that the few in flight cost little memory.
const CHUNK: usize = 8 << 20;

/// Chunks in existence, at most: one being filled, two queued, one being written.
const CHUNKS: usize = 4;

/// A buffer whose contents start at an [`ALIGN`]ed address, with room for one [`CHUNK`].
struct AlignedChunk {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedChunk {
    fn new() -> AlignedChunk {
        let storage = vec![0u8; CHUNK + ALIGN];
        // An offset past the end (alignment impossible) would make `filled` panic; for a
        // `u8` buffer `align_offset` always succeeds, below ALIGN.
        let start = storage.as_ptr().align_offset(ALIGN).min(ALIGN);
        AlignedChunk {
            storage,
            start,
            len: 0,
        }
    }

    /// A chunk with no room, to stand in for one handed over.
    fn unallocated() -> AlignedChunk {
        AlignedChunk {
            storage: Vec::new(),
            start: 0,
            len: 0,
        }
    }

    fn filled(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    /// Copies as much of `bytes` as fits; returns how much that was.
    fn fill_from(&mut self, bytes: &[u8]) -> usize {
        let room = CHUNK - self.len;
        let taken = room.min(bytes.len());
        let at = self.start + self.len;
        self.storage[at..at + taken].copy_from_slice(&bytes[..taken]);
        self.len += taken;
        taken
    }

    fn is_full(&self) -> bool {
        self.len == CHUNK
    }
}

/// A `Write` to a file that hands full chunks to a writing thread. Call [`Self::finish`] to
/// write the rest and learn whether everything was written; dropping it without that stops the
/// thread and leaves the file incomplete (which is what an error on the way wants: the
/// temporary file is then removed).
pub(crate) struct ChunkedWriter<'scope> {
    current: AlignedChunk,
    chunks_made: usize,
    /// To the writing thread; `None` once it has failed or been told to finish.
    to_writer: Option<SyncSender<AlignedChunk>>,
    /// Chunks written, back from the writing thread for reuse.
    written: Receiver<AlignedChunk>,
    writer: Option<ScopedJoinHandle<'scope, io::Result<()>>>,
}

impl<'scope> ChunkedWriter<'scope> {
    /// Starts the writing thread in `scope`; `file` is written from its current position on,
    /// with `O_DIRECT` where it can be when `direct` is true, through the page cache otherwise.
    pub(crate) fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        file: &'env File,
        direct: bool,
    ) -> ChunkedWriter<'scope> {
        let (to_writer, chunks) = mpsc::sync_channel::<AlignedChunk>(1);
        let (give_back, written) = mpsc::channel();
        let writer = scope.spawn(move || {
            let mut output = DirectOutput::new(file, direct)?;
            for chunk in chunks {
                output.write_chunk(chunk.filled())?;
                // The other end is gone only when the writer was dropped: nothing to reuse.
                let _ = give_back.send(AlignedChunk { len: 0, ..chunk });
            }
            // The file is left as it was given: reads of it must not need alignment.
            output.set_direct(false);
            Ok(())
        });
        ChunkedWriter {
            current: AlignedChunk::new(),
            chunks_made: 1,
            to_writer: Some(to_writer),
            written,
            writer: Some(writer),
        }
    }

    /// Hands the current chunk to the writing thread and takes an empty one.
    fn hand_over(&mut self) -> io::Result<()> {
        let next = match self.written.try_recv() {
            Ok(chunk) => chunk,
            Err(_) if self.chunks_made < CHUNKS => {
                self.chunks_made += 1;
                AlignedChunk::new()
            }
            // Waits for the disk: a chunk comes back once written, or the thread has failed.
            Err(_) => match self.written.recv() {
                Ok(chunk) => chunk,
                Err(_) => return Err(self.writer_error()),
            },
        };
        let chunk = std::mem::replace(&mut self.current, next);
        self.send(chunk)
    }

    fn send(&mut self, chunk: AlignedChunk) -> io::Result<()> {
        let sent = match &self.to_writer {
            Some(to_writer) => to_writer.send(chunk).is_ok(),
            None => false,
        };
        match sent {
            true => Ok(()),
            false => Err(self.writer_error()),
        }
    }

    /// Why the writing thread stopped early.
    fn writer_error(&mut self) -> io::Error {
        match self.join() {
            Err(error) => error,
            Ok(()) => io::Error::other("the thread writing the file has stopped"),
        }
    }

    /// Tells the writing thread there is nothing more and waits for it.
    fn join(&mut self) -> io::Result<()> {
        self.to_writer = None;
        match self.writer.take().map(ScopedJoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the thread writing the file panicked")),
            None => Err(io::Error::other("the thread writing the file has stopped")),
        }
    }

    /// Writes what is left and waits until every byte has been handed to the file system.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if self.current.len > 0 {
            let last = std::mem::replace(&mut self.current, AlignedChunk::unallocated());
            self.send(last)?;
        }
        self.join()
    }
}

impl Write for ChunkedWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let taken = self.current.fill_from(bytes);
        if self.current.is_full() {
            self.hand_over()?;
        }
        Ok(taken)
    }

    /// Buffered bytes are written by [`Self::finish`]: a partial chunk written now would
    /// misalign every chunk after it.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The file on the writing thread's side, and whether it is in direct mode.
struct DirectOutput<'a> {
    file: &'a File,
    offset: u64,
    direct: bool,
    /// False once the file system has refused `O_DIRECT`.
    direct_possible: bool,
}

impl<'a> DirectOutput<'a> {
    fn new(file: &'a File, direct: bool) -> io::Result<DirectOutput<'a>> {
        use std::io::Seek;
        let offset = (&mut &*file).stream_position()?;
        Ok(DirectOutput {
            file,
            offset,
            direct: false,
            direct_possible: direct && cfg!(target_os = "linux"),
        })
    }

    /// Writes all of `bytes`: directly when it and the offset are aligned, through the page
    /// cache otherwise or when a direct write is refused.
    fn write_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        let aligned = |offset: u64, bytes: &[u8]| {
            offset.is_multiple_of(ALIGN as u64)
                && bytes.len().is_multiple_of(ALIGN)
                && (bytes.as_ptr() as usize).is_multiple_of(ALIGN)
        };
        let mut rest = bytes;
        while !rest.is_empty() {
            self.set_direct(self.direct_possible && aligned(self.offset, rest));
            match (&mut &*self.file).write(rest) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => {
                    rest = &rest[written..];
                    self.offset += written as u64;
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                // Refused for direct I/O (a file system without it, a device with larger
                // blocks): the same bytes go through the page cache instead.
                Err(error) if self.direct && error.kind() == io::ErrorKind::InvalidInput => {
                    self.direct_possible = false;
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Turns `O_DIRECT` on or off; a file system that refuses it is written through the page
    /// cache from then on.
    #[cfg(target_os = "linux")]
    fn set_direct(&mut self, direct: bool) {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        if direct == self.direct {
            return;
        }
        let changed = fcntl_getfl(self.file).and_then(|flags| {
            let flags = if direct {
                flags | OFlags::DIRECT
            } else {
                flags - OFlags::DIRECT
            };
            fcntl_setfl(self.file, flags)
        });
        match changed {
            Ok(()) => self.direct = direct,
            Err(_) => self.direct_possible = false,
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn set_direct(&mut self, _direct: bool) {}
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    /// Writes `content` through a `ChunkedWriter` in pieces of `piece` bytes, with direct I/O
    /// and through the page cache, and reads the file back; both must read back alike.
    fn round_trip(content: &[u8], piece: usize) -> Vec<u8> {
        let [direct, cached] = [true, false].map(|direct| {
            let mut file = tempfile::tempfile().unwrap();
            std::thread::scope(|scope| {
                let mut writer = ChunkedWriter::start(scope, &file, direct);
                for part in content.chunks(piece.max(1)) {
                    writer.write_all(part).unwrap();
                }
                writer.finish().unwrap();
            });
            let mut back = Vec::new();
            use std::io::Seek;
            file.rewind().unwrap();
            file.read_to_end(&mut back).unwrap();
            back
        });
        assert!(direct == cached, "direct and cached writes differ");
        direct
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 % 251) as u8).collect()
    }

    #[test]
    fn small_files_are_written_whole() {
        for len in [0, 1, 4095, 4096, 100_000] {
            assert_eq!(round_trip(&pattern(len), 777), pattern(len), "{len} bytes");
        }
    }

    #[test]
    fn files_of_several_chunks_with_a_tail_are_written_whole() {
        for len in [CHUNK, 2 * CHUNK, 3 * CHUNK + 12_345, 5 * CHUNK - 1] {
            let content = pattern(len);
            assert_eq!(round_trip(&content, 3 << 20), content, "{len} bytes");
            assert_eq!(round_trip(&content, CHUNK + 1), content, "{len} bytes");
        }
    }

    #[test]
    fn writing_after_what_is_already_in_the_file_continues_there() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"head:").unwrap();
        let content = pattern(CHUNK + 10);
        std::thread::scope(|scope| {
            let mut writer = ChunkedWriter::start(scope, &file, true);
            writer.write_all(&content).unwrap();
            writer.finish().unwrap();
        });
        let mut back = Vec::new();
        use std::io::Seek;
        file.rewind().unwrap();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(&back[..5], b"head:");
        assert_eq!(&back[5..], &content[..]);
    }

    #[test]
    fn a_write_error_is_returned_not_lost() {
        // A file opened read-only cannot be written: the thread's error comes back.
        let path = tempfile::NamedTempFile::new().unwrap();
        let file = File::open(path.path()).unwrap();
        std::thread::scope(|scope| {
            let mut writer = ChunkedWriter::start(scope, &file, true);
            let mut result = Ok(());
            for _ in 0..4 {
                result = result.and_then(|()| writer.write_all(&pattern(CHUNK)));
            }
            let error = result.and_then(|()| writer.finish()).unwrap_err();
            // The operating system's own error (EBADF), not a bare "stopped".
            assert!(error.raw_os_error().is_some(), "{error}");
        });
    }
}
