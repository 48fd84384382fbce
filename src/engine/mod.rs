//! From inputs to results: opens files (or standard input), feeds them through the scanner in
//! blocks, and collects counts or writes the repaired bytes.
//!
//! A memory-mapped file is cut into blocks once (`blocks`), the blocks are scanned in
//! parallel with `rayon`, a few per thread ahead, and their results are consumed in input order, so
//! memory stays at a few blocks whatever the file's size, and every count, offset and byte of
//! output is the same whatever the number of threads: the blocks, and so the scanner's
//! context, never depend on it. Standard input and pipes are read in the same blocks, one after
//! the other.

pub(crate) mod blocks;
pub(crate) mod classify;
mod direct;
mod identity;
mod in_order;
mod input;
mod map_guard;
pub(crate) mod replace;
#[cfg(test)]
pub(crate) mod tiling;
pub(crate) mod transcode;
pub(crate) mod walk;

pub(crate) use in_order::in_order_in_parallel;

use std::cell::Cell;
use std::convert::Infallible;
use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::{ControlFlow, Range};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use crate::error::{Change, Error};
use crate::mojibake::counts::{CountingSink, Sequences};
use crate::mojibake::{Counts, Readings, RepairPatches, Run, Scanner, Sink, Utf8};
pub use input::{Input, Stream};
use map_guard::GuardedMap;
use replace::Replacement;

impl Input {
    /// Opens the input: a regular file larger than one block (`block_size`) is memory-mapped
    /// unless `mmap` is false, anything else is read. A file of one block is scanned by one
    /// thread either way, and reading it costs one `read` where a map costs `mmap`, page
    /// faults and `munmap`, which threads mapping many small files at once contend on in the
    /// kernel (ripgrep maps no file of a directory tree for that reason).
    fn open(&self, mmap: bool, block_size: usize) -> Result<Source, Error> {
        let path = match self {
            Input::Stream(stream) => {
                // Bytes already held (a small file read once for its head) are scanned where
                // they are, not copied into blocks.
                if let Some(bytes) = stream.held()? {
                    return Ok(Source::Held(bytes));
                }
                // Standard input redirected from a file (`< dump.sql`) is that file: mapped,
                // its blocks go to the pool as a named file's do, instead of being read one
                // after the other.
                if mmap && let Some((file, len)) = stream.take_regular_file(block_size as u64)? {
                    let name = stream.name();
                    let source = map_file(file, len, name)?;
                    if let Source::Map { file, .. } = &source {
                        // Left at the end, where reading it through would leave it, for what
                        // reads standard input after this run.
                        let mut file = file;
                        io::Seek::seek(&mut file, io::SeekFrom::Start(len)).map_err(|source| {
                            Error::Open {
                                path: name.to_path_buf(),
                                source,
                            }
                        })?;
                    }
                    return Ok(source);
                }
                return Ok(Source::Reader(stream.read_once()?));
            }
            Input::File(path) => path,
        };
        let open_error = |source| Error::Open {
            path: path.clone(),
            source,
        };
        let file = File::open(path).map_err(open_error)?;
        let metadata = file.metadata().map_err(open_error)?;
        if !metadata.is_file() {
            return Ok(Source::Reader(Box::new(file)));
        }
        if !mmap || metadata.len() <= block_size as u64 {
            let len = metadata.len();
            return Ok(Source::Sized {
                reader: Box::new(file),
                len,
            });
        }
        map_file(file, metadata.len(), path)
    }
}

/// Maps `file`, a regular file of `len` bytes named `path`; reads it from its start instead
/// when the map cannot be guarded.
fn map_file(file: File, len: u64, path: &Path) -> Result<Source, Error> {
    let open_error = |source| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    // SAFETY: the map is only ever read. If another process changes the file while it is
    // mapped, the bytes we read may mix old and new content (what a concurrent `read` would
    // also give). If it truncates the file, touching a page past the new end raises SIGBUS:
    // the guard below turns that into zeros and a mark on the map, which every block checks
    // before what was computed from it is used (see `for_each_block`).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(open_error)?;
    let Ok(map) = GuardedMap::new(map) else {
        // Unguarded, a truncation would kill the process: the file is read instead, from its
        // start (standard input's head may have been read from it already).
        let mut file = file;
        io::Seek::rewind(&mut file).map_err(open_error)?;
        return Ok(Source::Sized {
            reader: Box::new(file),
            len,
        });
    };
    // Only a hint to the kernel's read-ahead: failing to give it changes nothing.
    let _ = map.map().advise(memmap2::Advice::Sequential);
    Ok(Source::Map { map, file })
}

/// Told how much of the inputs is done, as it is: what a progress bar needs, without the
/// library knowing how it is drawn. Called from the worker threads.
pub trait Progress: Send + Sync {
    /// `bytes` more of the input have been processed.
    fn advance(&self, bytes: u64);
}

/// How inputs are read and what is reported while they are.
#[derive(Clone)]
pub struct EngineOptions {
    /// Memory-map regular files (the default); `false` reads them like a pipe.
    pub mmap: bool,
    /// Advanced by the number of bytes done, as blocks are finished.
    pub progress: Option<Arc<dyn Progress>>,
    /// Only the blocks that start in this range of offsets (`None`: all of them). The blocks
    /// are the whole input's, cut as a run over all of it cuts them, so that any tiling of an
    /// input by ranges processes each block exactly once, with the context it has in the
    /// whole run (its lines, the text scope of its buffer).
    pub range: Option<Range<u64>>,
    /// The size blocks are cut to: [`blocks::BLOCK_SIZE`] but in tests, which need many
    /// blocks in small inputs.
    pub(crate) block_size: usize,
    /// Whether `fix` counts what it repairs by garbled form too, or only the totals (for a
    /// run that lists no sequences: a hash-map update per repaired character saved).
    pub(crate) fix_sequences: Sequences,
}

impl EngineOptions {
    /// Whether the block that starts at `start` is one this run processes.
    fn takes(&self, start: u64) -> bool {
        self.range
            .as_ref()
            .is_none_or(|range| range.contains(&start))
    }

    /// Whether no block that starts at `start` or later is one this run processes.
    fn done_at(&self, start: u64) -> bool {
        self.range.as_ref().is_some_and(|range| start >= range.end)
    }
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("mmap", &self.mmap)
            .field("progress", &self.progress.is_some())
            .field("range", &self.range)
            .field("block_size", &self.block_size)
            .field("fix_sequences", &self.fix_sequences)
            .finish()
    }
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            mmap: true,
            progress: None,
            range: None,
            block_size: blocks::BLOCK_SIZE,
            fix_sequences: Sequences::Counted,
        }
    }
}

/// How many blocks per thread a mapped input is processed ahead of the one consumed. The
/// consumer is itself one of the pool's threads, which processes queued blocks while it waits
/// for the next one in order; with a smaller window the other threads often find every block
/// of it started and sit idle until the consumer comes back (measured in `benches/RESULTS.md`,
/// "Blocks in flight per thread"). A block in flight costs only its results (counts,
/// patches): its bytes are the map's.
const BLOCKS_AHEAD_PER_THREAD: usize = 4;

/// An opened input.
enum Source {
    Map {
        map: GuardedMap,
        file: File,
    },
    /// A regular file read, not mapped, of the length it had when it was opened (a shorter
    /// read means it was truncated).
    Sized {
        reader: Box<dyn Read + Send>,
        len: u64,
    },
    Reader(Box<dyn Read + Send>),
    /// The whole input, already in memory.
    Held(Arc<Vec<u8>>),
}

/// Runs `process` on every block of `input` (in parallel on the pool, but for an input of one
/// block read from a file or held in memory) and hands each result to `consume` in input
/// order, with the block and its offset, until `consume` says to stop: then no block after is
/// read, and no result after is handed on. Says whether it stopped so.
fn for_each_block<T: Send>(
    input: &Input,
    readings: &Readings,
    options: &EngineOptions,
    process: impl Fn(&[u8], u64) -> Result<T, Error> + Sync,
    mut consume: impl FnMut(&[u8], u64, T) -> Result<ControlFlow<()>, Error>,
) -> Result<ControlFlow<()>, Error> {
    let stopped = Cell::new(false);
    let path = input.display_path();
    let done = |bytes: usize| {
        if let Some(progress) = &options.progress {
            progress.advance(bytes as u64);
        }
    };
    let mut in_memory = |bytes: &[u8], mapped| {
        let bytes = InMemory {
            bytes,
            mapped,
            path,
        };
        bytes.for_each_block(readings, options, &stopped, &process, &mut consume, done)?;
        Ok(flow_of(&stopped))
    };
    let (reader, expected): (Box<dyn Read + Send>, Option<u64>) =
        match input.open(options.mmap, options.block_size)? {
            Source::Map { map, file } => return in_memory(&map, Some((&map, &file))),
            Source::Held(held) => return in_memory(&held, None),
            Source::Sized { reader, len } => (reader, Some(len)),
            Source::Reader(reader) => (reader, None),
        };
    // A file of one block is read and processed on this thread: a thread of its own to read
    // it would cost more than it saves in a tree of small files.
    let (read, left_unread) = match expected.is_some_and(|len| len <= options.block_size as u64) {
        true => {
            let mut read = 0u64;
            read_blocks(
                reader,
                expected,
                readings,
                options.block_size,
                path,
                |block, base| {
                    read += block.len() as u64;
                    if !options.takes(base) {
                        return Ok(ControlFlow::Continue(()));
                    }
                    let result = process(block, base)?;
                    let flow = consume(block, base, result)?;
                    stopped.set(flow.is_break());
                    done(block.len());
                    Ok(flow)
                },
            )?;
            (read, false)
        }
        false => {
            let blocks = ReadBlocks {
                reader,
                expected,
                readings,
                block_size: options.block_size,
                path,
            };
            blocks.in_parallel(
                |base| !stopped.get() && !options.done_at(base),
                |base| options.takes(base),
                &process,
                |block, base, result| {
                    let flow = consume(block, base, result)?;
                    stopped.set(flow.is_break());
                    done(block.len());
                    Ok(flow)
                },
            )?
        }
    };
    // A file that ends before the length it had when opened was truncated while it was read
    // (unless reading stopped before its end: no more of it was needed).
    match expected {
        Some(len) if read < len && !stopped.get() && !left_unread => Err(Error::Changed {
            path: path.to_path_buf(),
            seen: Change::Truncated { len: read },
        }),
        _ => Ok(flow_of(&stopped)),
    }
}

/// The bytes of a whole input in memory, mapped from its file or held: its blocks are cut
/// as any pass over it cuts them, and scanned where they lie.
struct InMemory<'a> {
    bytes: &'a [u8],
    /// The map and its file, when the bytes are a map: a block's results are used only once
    /// the file is known to have kept its length ([`still_there`]), and its pages are dropped
    /// when it is done.
    mapped: Option<(&'a GuardedMap, &'a File)>,
    path: &'a Path,
}

impl InMemory<'_> {
    /// [`for_each_block`] over these bytes, `stopped` set when `consume` says to stop. An input
    /// of one block (a small file read for its head) is processed on this thread: handing it
    /// to the pool would cost more than it saves in a tree of small files.
    fn for_each_block<T: Send>(
        &self,
        readings: &Readings,
        options: &EngineOptions,
        stopped: &Cell<bool>,
        process: &(impl Fn(&[u8], u64) -> Result<T, Error> + Sync),
        consume: &mut impl FnMut(&[u8], u64, T) -> Result<ControlFlow<()>, Error>,
        done: impl Fn(usize),
    ) -> Result<(), Error> {
        let bytes = self.bytes;
        let taken = block_ranges(bytes, readings, options.block_size)
            .take_while(|range| !stopped.get() && !options.done_at(range.start as u64))
            .filter(|range| options.takes(range.start as u64));
        let mut consume_block = |range: Range<usize>, result: T| {
            // Blocks started before the stop are done, and dropped.
            if stopped.get() {
                return Ok(());
            }
            // A result computed from a lost page is never used; nor is what `consume` copied
            // out of the block, which it read again: it is checked after too (and an error of
            // its own, such as a write of lost pages, is that).
            self.still_there(range.end)?;
            let consumed = consume(&bytes[range.clone()], range.start as u64, result);
            self.still_there(range.end)?;
            stopped.set(consumed?.is_break());
            done(range.len());
            if let Some((map, _)) = self.mapped {
                // SAFETY: the map is a read-only, file-backed mapping, so dropping its pages
                // loses nothing: a page touched again is read back from the file. None of
                // these is touched again; dropping them keeps the resident memory at a few
                // blocks instead of the whole file. A failure only means they stay resident.
                let _ = unsafe {
                    map.map().unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        range.start,
                        range.len(),
                    )
                };
            }
            Ok(())
        };
        let process_block =
            |range: Range<usize>| match process(&bytes[range.clone()], range.start as u64) {
                Ok(result) => Ok((range, result)),
                // An error made by a read of lost pages is that the file changed.
                Err(error) => Err(self.still_there(range.end).err().unwrap_or(error)),
            };
        if self.mapped.is_none() && bytes.len() <= options.block_size {
            for range in taken {
                let (range, result) = process_block(range)?;
                consume_block(range, result)?;
            }
            return Ok(());
        }
        in_order_in_parallel(
            taken,
            BLOCKS_AHEAD_PER_THREAD,
            process_block,
            |(range, result)| consume_block(range, result),
        )
    }

    /// Whether the bytes up to `end` are still the input's: always, but for a map of a file
    /// that was truncated under it.
    fn still_there(&self, end: usize) -> Result<(), Error> {
        match self.mapped {
            Some((map, file)) => still_there(map, file, self.path, end),
            None => Ok(()),
        }
    }
}

/// Whether a block loop stopped early.
fn flow_of(stopped: &Cell<bool>) -> ControlFlow<()> {
    match stopped.get() {
        true => ControlFlow::Break(()),
        false => ControlFlow::Continue(()),
    }
}

/// Calls `each` with every block of `input` and its offset, one after the other in input
/// order, for work that carries state from one block to the next (an audit log's line numbers,
/// a dump's lexer). The input is read as every scan reads it: mapped, with truncation checked
/// and processed pages dropped, or read.
pub(crate) fn for_each_block_in_order(
    input: &Input,
    readings: &Readings,
    options: &EngineOptions,
    mut each: impl FnMut(&[u8], u64) -> Result<(), Error>,
) -> Result<(), Error> {
    for_each_block_in_order_while(input, readings, options, |block, base| {
        each(block, base).map(ControlFlow::Continue)
    })
    .map(|_| ())
}

/// [`for_each_block_in_order`] until `each` says to stop: no block after that is read (a
/// dump's range, which reads no further than it needs). Says whether `each` stopped it.
pub(crate) fn for_each_block_in_order_while(
    input: &Input,
    readings: &Readings,
    options: &EngineOptions,
    mut each: impl FnMut(&[u8], u64) -> Result<ControlFlow<()>, Error>,
) -> Result<ControlFlow<()>, Error> {
    for_each_block(
        input,
        readings,
        options,
        |_, _| Ok(()),
        |block, base, ()| each(block, base),
    )
}

fn read_blocks<R: Read>(
    reader: R,
    expected: Option<u64>,
    readings: &Readings,
    block_size: usize,
    path: &Path,
    each: impl FnMut(&[u8], u64) -> Result<ControlFlow<()>, Error>,
) -> Result<(), Error> {
    let reading = blocks::BlockReading {
        block_size,
        expected,
    };
    blocks::for_each_block_read(reader, readings, reading, each, |offset, source| {
        Error::Read {
            path: path.to_path_buf(),
            offset,
            source,
        }
    })
}

/// How many blocks per thread a read input (a pipe, standard input, a file not mapped) is
/// processed ahead of the one consumed: fewer than a mapped input's, since each is a buffer
/// of its own; more measured no faster.
const READ_BLOCKS_AHEAD_PER_THREAD: usize = 1;

/// An input read block by block on a thread of its own, while the pool processes the blocks
/// read before.
struct ReadBlocks<'a> {
    reader: Box<dyn Read + Send>,
    expected: Option<u64>,
    readings: &'a Readings,
    block_size: usize,
    path: &'a Path,
}

impl ReadBlocks<'_> {
    /// Reads the blocks, runs `process` on those `takes` accepts on the pool, and hands each
    /// result to `consume` on this thread in input order, as [`in_order_in_parallel`] does,
    /// while `goes_on` (asked of each block's offset before it is handed on) holds and until
    /// `consume` says to stop. Returns how many bytes were read, and whether the input was
    /// left unread after some block because no more were needed. A read error is returned once
    /// the blocks read before it are consumed, as when the blocks are read and processed one
    /// after the other.
    ///
    /// The reading thread is not waited for once no more blocks are needed: it may be waiting
    /// for a pipe's writer, or a terminal, that has nothing more to give. Its next block finds
    /// no taker, and it ends.
    fn in_parallel<T: Send>(
        self,
        goes_on: impl Fn(u64) -> bool,
        takes: impl Fn(u64) -> bool,
        process: &(impl Fn(&[u8], u64) -> Result<T, Error> + Sync),
        mut consume: impl FnMut(&[u8], u64, T) -> Result<ControlFlow<()>, Error>,
    ) -> Result<(u64, bool), Error> {
        let ReadBlocks {
            reader,
            expected,
            readings,
            block_size,
            path,
        } = self;
        let (send, receive) = mpsc::sync_channel::<(Vec<u8>, u64)>(1);
        let (give_back, recycle) = mpsc::channel::<Vec<u8>>();
        let (finish, finished) = mpsc::channel::<Result<u64, Error>>();
        let readings = readings.clone();
        let path_read = path.to_path_buf();
        let reading = blocks::BlockReading {
            block_size,
            expected,
        };
        let read_all = move || {
            let mut read = 0u64;
            let result = blocks::for_each_owned_block_read(
                reader,
                &readings,
                reading,
                || recycle.try_recv().unwrap_or_default(),
                |block, base| {
                    read += block.len() as u64;
                    Ok(match send.send((block, base)) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(_) => ControlFlow::Break(()),
                    })
                },
                |offset, source| Error::Read {
                    path: path_read.clone(),
                    offset,
                    source,
                },
            );
            let _ = finish.send(result.map(|()| read));
        };
        std::thread::Builder::new()
            .name("undouble-read".into())
            .spawn(read_all)
            .map_err(|source| Error::Read {
                path: path.to_path_buf(),
                offset: 0,
                source,
            })?;
        let (stopped, left_unread) = (Cell::new(false), Cell::new(false));
        // The stop is looked at before waiting for the next block: a stream that is still
        // being written need not deliver it.
        let taken = std::iter::from_fn(|| (!stopped.get()).then(|| receive.recv().ok()).flatten())
            .take_while(|(_, base)| {
                let go = !stopped.get() && goes_on(*base);
                left_unread.set(!go);
                go
            })
            .filter(|(_, base)| takes(*base));
        let processed = in_order_in_parallel(
            taken,
            READ_BLOCKS_AHEAD_PER_THREAD,
            |(block, base)| process(&block, base).map(|result| (block, base, result)),
            |(block, base, result)| {
                // Blocks started before the stop are done, and dropped.
                if !stopped.get() {
                    stopped.set(consume(&block, base, result)?.is_break());
                }
                let _ = give_back.send(block);
                Ok(())
            },
        );
        // From here on, a block read finds no taker and ends the reading thread.
        drop(receive);
        processed?;
        if stopped.get() || left_unread.get() {
            return Ok((0, true));
        }
        // Every block was taken: the reader has come to the end of the input, or to an error.
        let read = finished
            .recv()
            .unwrap_or_else(|_| Err(Error::Internal("the input's reader crashed".into())))?;
        Ok((read, false))
    }
}

/// The blocks of a mapped file, cut where [`blocks::next_block_len`] cuts them, found as they
/// are needed: finding a cut reads the end of its block (all of it in a line that does not
/// end), so cutting the whole file first would bring every page of it into memory at once.
fn block_ranges<'a>(
    input: &'a [u8],
    readings: &'a Readings,
    block_size: usize,
) -> impl Iterator<Item = Range<usize>> + 'a {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = input.get(at..).filter(|rest| !rest.is_empty())?;
        let len = blocks::next_block_len(rest, true, block_size, readings);
        let range = at..at + len;
        at += len;
        Some(range)
    })
}

/// Fails, naming the file, when a read of its map met a lost page or the file no longer reaches
/// `end`: what was read of the block ending there may be zeros instead of its bytes.
fn still_there(map: &GuardedMap, file: &File, path: &Path, end: usize) -> Result<(), Error> {
    let len = file
        .metadata()
        .map(|m| m.len())
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            offset: end as u64,
            source,
        })?;
    let faulted = map.faulted();
    let seen = match len < end as u64 || (faulted && len < map.len() as u64) {
        true => Change::Truncated { len },
        false if faulted => Change::PageLost,
        false => return Ok(()),
    };
    Err(Error::Changed {
        path: path.to_path_buf(),
        seen,
    })
}

/// Passes every run to two sinks: one that may fail, and one that never does.
struct Tee<A, B> {
    first: A,
    second: B,
}

impl<A: Sink, B: Sink<Error = Infallible>> Sink for Tee<A, B> {
    type Error = A::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), A::Error> {
        self.first.run(input, run)?;
        let Ok(()) = self.second.run(input, run);
        Ok(())
    }

    fn end(&mut self, input: &[u8]) -> Result<(), A::Error> {
        self.first.end(input)?;
        let Ok(()) = self.second.end(input);
        Ok(())
    }
}

/// Scans one input and counts what it holds; changes nothing.
pub(crate) fn scan_input(
    scanner: &Scanner,
    input: &Input,
    options: &EngineOptions,
) -> Result<Counts, Error> {
    scan_input_keeping_head(scanner, input, options, 0).map(|(counts, _)| counts)
}

/// Scans one input, and keeps a copy of its first `head_limit` bytes (at most its first
/// block), for what needs to look at the start of a file once it has been read: the same
/// bytes whether it was mapped, read or piped.
pub(crate) fn scan_input_keeping_head(
    scanner: &Scanner,
    input: &Input,
    options: &EngineOptions,
    head_limit: usize,
) -> Result<(Counts, Vec<u8>), Error> {
    let mut total = Counts::default();
    let mut head = Vec::new();
    // Every block is consumed: the loop never stops early.
    let _all = for_each_block(
        input,
        scanner.readings(),
        options,
        |block, base| Ok(count_block(scanner, block, base, Sequences::Counted)),
        |block, base, counts| {
            if base == 0 {
                head.extend_from_slice(&block[..block.len().min(head_limit)]);
            }
            total.merge(counts);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    Ok((total, head))
}

/// Whether a fix changes anything in `input`: its blocks are scanned as
/// [`scan_input`] scans them, and no block is read after the first that holds a change (the
/// counts of a block are its own, so what comes after cannot undo it).
pub(crate) fn input_changes(
    scanner: &Scanner,
    input: &Input,
    options: &EngineOptions,
) -> Result<bool, Error> {
    // Blocks are answered in order: once one holds a change, those after it that the pool
    // has not begun are not scanned (their answer is dropped).
    let answered = AtomicBool::new(false);
    let flow = for_each_block(
        input,
        scanner.readings(),
        options,
        |block, base| match answered.load(Ordering::Relaxed) {
            true => Ok(false),
            false => Ok(count_block(scanner, block, base, Sequences::Uncounted).changes() > 0),
        },
        |_, _, changes| match changes {
            true => {
                answered.store(true, Ordering::Relaxed);
                Ok(ControlFlow::Break(()))
            }
            false => Ok(ControlFlow::Continue(())),
        },
    )?;
    Ok(flow.is_break())
}

/// The counts of one block of an input, which starts at `base`: its bytes, and the runs its
/// chosen reading finds.
fn count_block(scanner: &Scanner, block: &[u8], base: u64, sequences: Sequences) -> Counts {
    let mut counts = Counts::default();
    let utf8 = Utf8::known(counts.observe_bytes(block, base));
    let Ok(()) = scanner.scan_chosen(
        block,
        &mut CountingSink {
            counts: &mut counts,
            base,
            sequences,
        },
        utf8,
    );
    counts
}

/// The head [`scan_input_keeping_head`] keeps of a whole run, read on its own: the first
/// `head_limit` bytes of the input's first block, for a run of a range that starts past it.
pub(crate) fn first_block_head(
    input: &Input,
    readings: &Readings,
    options: &EngineOptions,
    head_limit: usize,
) -> Result<Vec<u8>, Error> {
    let window = options.block_size;
    let mut head = input.head(window.saturating_add(1))?;
    // One byte more than a block tells whether the first block is the whole input.
    let complete = head.len() <= window;
    let len = blocks::next_block_len(&head, complete, window, readings);
    head.truncate(len.min(head_limit));
    Ok(head)
}

/// Repairs one input into `out` (named `out_path` in errors), and counts what it repaired.
pub(crate) fn fix_input<W: Write>(
    scanner: &Scanner,
    input: &Input,
    mut out: W,
    out_path: &Path,
    options: &EngineOptions,
) -> Result<Counts, Error> {
    let write_error = |source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    let mut total = Counts::default();
    // Every block is consumed: the loop never stops early.
    let _all = for_each_block(
        input,
        scanner.readings(),
        options,
        |block, base| {
            let mut counts = Counts::default();
            let utf8 = Utf8::known(counts.observe_bytes(block, base));
            let mut patches = RepairPatches::default();
            let mut tee = Tee {
                first: &mut patches,
                second: CountingSink {
                    counts: &mut counts,
                    base,
                    sequences: options.fix_sequences,
                },
            };
            let Ok(()) = scanner.scan_chosen(block, &mut tee, utf8);
            Ok((patches, counts))
        },
        |block, _, (patches, counts)| {
            patches
                .write_patched(block, &mut out)
                .map_err(write_error)?;
            total.merge(counts);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    out.flush().map_err(write_error)?;
    Ok(total)
}

/// How much of an input the binary sniff looks at.
pub(crate) const SNIFF_LIMIT: usize = 8192;

/// Whether the input whose first bytes are `head` (all of them, or at least [`SNIFF_LIMIT`])
/// looks binary, as grep tells: a NUL byte in the first 8 KiB, unless the input is UTF-16 or
/// UTF-32 text (by its byte order mark or first characters). A stream is sniffed in its kept
/// head ([`Input::head`]), so nothing of it is lost.
pub(crate) fn is_binary_head(head: &[u8]) -> bool {
    let head = &head[..head.len().min(SNIFF_LIMIT)];
    memchr::memchr(0, head).is_some() && !classify::is_wide_unicode(head)
}

/// Writes every byte of `input` to `out` (named `out_path` in errors) unchanged: what a
/// skipped input becomes in an output that must hold every input.
pub(crate) fn copy_input(
    input: &Input,
    readings: &Readings,
    out: &mut dyn Write,
    out_path: &Path,
    options: &EngineOptions,
) -> Result<(), Error> {
    let write_error = |source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    for_each_block_in_order(input, readings, options, |block, _| {
        out.write_all(block).map_err(write_error)
    })?;
    out.flush().map_err(write_error)
}

/// What a fix did to its target file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// The target was written (replaced atomically).
    Replaced,
    /// Nothing to repair, and the target is the input itself: it was left as it was.
    Unchanged,
}

/// Repairs `input` into the file `target`, atomically (see [`write_to_path`]); when `target`
/// is the input itself and nothing needs repair, nothing is written.
pub(crate) fn fix_to_path(
    scanner: &Scanner,
    input: &Input,
    target: &Path,
    replacing: Replacing<'_>,
    options: &EngineOptions,
) -> Result<(Counts, Written), Error> {
    write_to_path(
        input,
        target,
        replacing,
        |out| fix_input(scanner, input, out, target, options),
        |counts| counts.changes() > 0,
    )
}

/// What a write to a path does about the file it replaces.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Replacing<'a> {
    /// Keep the old target beside it, under its name plus this suffix.
    pub backup: Option<&'a str>,
    /// Replace a file that has other hard links, which keep the old content, instead of
    /// refusing it.
    pub break_hard_links: bool,
    /// Write the new content through the page cache, not with `O_DIRECT` ([`direct`]).
    pub page_cache: bool,
}

/// Writes what `write` produces from `input` into the file `target`, atomically, as the same
/// file ([`Replacement`]): the bytes go to a temporary file in the target's directory, which
/// is given the owner, group, mode and extended attributes of the target (a new target gets
/// the mode of the input), synced, and renamed over the target in one step, and the directory
/// is synced. Until the rename the target is untouched. When `target` is the input itself and
/// `changed` says the result changed nothing, nothing is written.
///
/// A symbolic link is followed: the file it points to is replaced, in its own directory, and
/// the link stays. A target with other hard links is refused (they would keep the old
/// content) unless `replacing` says to break them. With a backup suffix, the old target is
/// kept beside the file replaced under its name plus that suffix (as a hard link, or a copy
/// where links are impossible); a backup path that exists already is refused, never
/// overwritten. A target that exists and is not a regular file (a device, a FIFO) is written
/// into directly instead: it cannot be replaced by a rename. An input file that changed in
/// any way while it was read (see `identity.rs`) is an error, and the target is left as it was.
pub(crate) fn write_to_path<T>(
    input: &Input,
    target: &Path,
    replacing: Replacing<'_>,
    write: impl FnOnce(&mut dyn Write) -> Result<T, Error>,
    changed: impl FnOnce(&T) -> bool,
) -> Result<(T, Written), Error> {
    let write_error = |source| Error::Write {
        path: target.to_path_buf(),
        source,
    };
    let existing = std::fs::metadata(target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let out = File::options()
            .write(true)
            .open(target)
            .map_err(write_error)?;
        let result = write(&mut io::BufWriter::with_capacity(1 << 20, out))?;
        return Ok((result, Written::Replaced));
    }
    let in_place = matches!(input, Input::File(path) if path == target);
    let file_path = followed(target).map_err(write_error)?;
    let backup = match replacing.backup {
        Some(suffix) if existing.is_some() => Some(backup_path(&file_path, suffix)?),
        _ => None,
    };
    // A new target takes the mode of the file it is made from; one that exists keeps its own.
    let new_file_permissions = match input {
        Input::File(path) => Some(replace::permissions_of(path).map_err(|source| Error::Open {
            path: path.clone(),
            source,
        })?),
        Input::Stream(_) => None,
    };
    let identity = match input {
        Input::File(path) => identity::Identity::of(path)?,
        Input::Stream(_) => None,
    };
    let replacement = Replacement::beside(&file_path).map_err(write_error)?;
    let file = replacement.file();
    let result = std::thread::scope(|scope| {
        let mut out = direct::ChunkedWriter::start(scope, file, !replacing.page_cache);
        let result = write(&mut out)?;
        out.finish().map_err(write_error)?;
        Ok::<T, Error>(result)
    })?;
    if in_place && !changed(&result) {
        return Ok((result, Written::Unchanged)); // the temporary file is removed on drop
    }
    if let Some(identity) = &identity {
        identity.check()?;
    }
    // Checked once the file is known to change: a file left as it is has nothing to refuse.
    if let Some(metadata) = &existing
        && metadata.nlink() > 1
        && !replacing.break_hard_links
    {
        return Err(Error::Usage(format!(
            "{}: not replaced: it has {} other hard link(s), which would keep the old content \
             (--break-hard-links gives the new content to this name only)",
            target.display(),
            metadata.nlink() - 1
        )));
    }
    if let Some(backup) = &backup {
        refuse_existing_backup(backup, target)?;
        keep_backup(&file_path, backup).map_err(|source| Error::Write {
            path: backup.clone(),
            source,
        })?;
    }
    replacement
        .commit(new_file_permissions)
        .map_err(write_error)?;
    Ok((result, Written::Replaced))
}

/// The file `path` names, its symbolic links followed; `path` itself when it is no link (or
/// a link to nothing, which a write replaces).
fn followed(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(real) => Ok(real),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(path.to_path_buf()),
            Err(error) => Err(error),
        },
        _ => Ok(path.to_path_buf()),
    }
}

/// Where the backup of `file` (its links followed) goes with `suffix`: beside it, under its
/// name plus the suffix. An empty suffix (the file itself) or one that holds a `/` is refused.
pub(crate) fn backup_path(file: &Path, suffix: &str) -> Result<PathBuf, Error> {
    if suffix.is_empty() || suffix.contains('/') {
        return Err(Error::Usage(format!(
            "--backup '{suffix}': a backup suffix is a non-empty file name ending, without '/' \
             (an empty one would name the file itself)"
        )));
    }
    let file = followed(file).map_err(|source| Error::Open {
        path: file.to_path_buf(),
        source,
    })?;
    let mut name = file.into_os_string();
    name.push(suffix);
    Ok(PathBuf::from(name))
}

/// Refuses a backup path that exists already: the file there would be lost.
fn refuse_existing_backup(backup: &Path, of: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(backup) {
        Ok(_) => Err(Error::Usage(format!(
            "{}: the backup of {} exists already, and a backup never overwrites: nothing was \
             written (move it away, or choose another --backup suffix)",
            backup.display(),
            of.display()
        ))),
        Err(_) => Ok(()),
    }
}

/// Checks, before anything is written, that the backups of `inputs` (files replaced in place)
/// with `suffix` overwrite nothing: no backup path exists already or is another input.
pub fn check_backups<'a>(
    inputs: impl IntoIterator<Item = &'a Path> + Clone,
    suffix: &str,
) -> Result<(), Error> {
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let all: std::collections::HashSet<PathBuf> = inputs.clone().into_iter().map(real).collect();
    for input in inputs {
        let backup = backup_path(input, suffix)?;
        if all.contains(&real(&backup)) {
            return Err(Error::Usage(format!(
                "{}: is an input and also the backup of {}: nothing was written (a backup \
                 never overwrites; choose another --backup suffix)",
                backup.display(),
                input.display()
            )));
        }
        refuse_existing_backup(&backup, input)?;
    }
    Ok(())
}

/// Keeps `file` under the path `backup`, which must not exist: as a hard link, or a copy with
/// its mode where links are impossible.
fn keep_backup(file: &Path, backup: &Path) -> io::Result<()> {
    match std::fs::hard_link(file, backup) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Err(error),
        Err(_) => {
            let mut from = File::open(file)?;
            let mut to = File::options().write(true).create_new(true).open(backup)?;
            io::copy(&mut from, &mut to)?;
            to.set_permissions(from.metadata()?.permissions())?;
            to.sync_all()
        }
    }
}
