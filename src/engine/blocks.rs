//! Feeds a reader to the scanner in blocks of bounded size, each cut where no double-encoded
//! sequence and no UTF-8 character can be split.
//!
//! A block ends after its last newline, so that the plausibility rule, which looks along the
//! line, sees the same context as in one pass over the whole input. A block with no newline
//! (a very long line) is cut just before its last byte that [`Readings::is_cut_safe`] allows:
//! ASCII, or a lead byte that only ever starts a sequence. Memory stays at a few blocks (those
//! being read, processed and written) whatever the input's size or line length; results
//! depend only on the input and [`BLOCK_SIZE`], never on whether it is memory-mapped or read,
//! nor on how reads split it.

use std::cell::Cell;
use std::io::{self, Read};
use std::ops::ControlFlow;

use crate::mojibake::Readings;

/// Target size of one block.
pub(crate) const BLOCK_SIZE: usize = 8 << 20;

/// Length of the next block taken from the front of `rest`, the unread part of the input;
/// `complete` says whether `rest` holds everything that is left. A block is at most
/// `block_size` bytes, so the same input is cut the same way whether it arrives as a slice or
/// in reads of any size.
pub(crate) fn next_block_len(
    rest: &[u8],
    complete: bool,
    block_size: usize,
    readings: &Readings,
) -> usize {
    if complete && rest.len() <= block_size {
        rest.len()
    } else {
        cut_point(&rest[..block_size.min(rest.len())], readings)
    }
}

/// Calls `each` with every block of `input` and its offset.
#[cfg(test)]
pub fn for_each_block_in<E>(
    input: &[u8],
    readings: &Readings,
    block_size: usize,
    mut each: impl FnMut(&[u8], u64) -> Result<(), E>,
) -> Result<(), E> {
    let block_size = block_size.max(1);
    let mut at = 0;
    while at < input.len() {
        let len = next_block_len(&input[at..], true, block_size, readings);
        each(&input[at..at + len], at as u64)?;
        at += len;
    }
    Ok(())
}

/// How [`for_each_block_read`] reads: the size of a block, and the input's length when it is
/// known beforehand (a regular file's), to size the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockReading {
    pub(crate) block_size: usize,
    pub(crate) expected: Option<u64>,
}

/// Reads `reader` to the end, or until `each` says to stop, and calls `each` with every block
/// and its offset in the input, cut exactly where [`next_block_len`] cuts the same bytes. A
/// read error is returned with the offset reached.
pub(crate) fn for_each_block_read<R: Read, E>(
    reader: R,
    readings: &Readings,
    reading: BlockReading,
    mut each: impl FnMut(&[u8], u64) -> Result<ControlFlow<()>, E>,
    read_error: impl Fn(u64, io::Error) -> E,
) -> Result<(), E> {
    // Two buffers take turns: the block just handed on is the next one's buffer.
    let spare = Cell::new(None::<Vec<u8>>);
    let fresh = || spare.take().unwrap_or_default();
    let each = |block: Vec<u8>, base| {
        let flow = each(&block, base);
        spare.set(Some(block));
        flow
    };
    for_each_owned_block_read(reader, readings, reading, fresh, each, read_error)
}

/// [`for_each_block_read`] handing each block over in a buffer of its own, which another
/// thread can take while the next block is read. `fresh` gives a buffer to read the next block
/// into (emptied here; one handed back by the block's user saves allocating and faulting in a
/// new one). Only what follows a block's cut is copied, into the next block's buffer.
pub(crate) fn for_each_owned_block_read<R: Read, E>(
    mut reader: R,
    readings: &Readings,
    reading: BlockReading,
    mut fresh: impl FnMut() -> Vec<u8>,
    mut each: impl FnMut(Vec<u8>, u64) -> Result<ControlFlow<()>, E>,
    read_error: impl Fn(u64, io::Error) -> E,
) -> Result<(), E> {
    let block_size = reading.block_size.max(1);
    // Sized for the input when its length is known (one byte more, to see its end without
    // growing), else grown as it asks, by `read_to_end`, which neither zeroes what it will
    // overwrite nor asks for more than it reads: a small input costs a small buffer.
    let capacity = reading.expected.map_or(0, |len| {
        usize::try_from(len).map_or(block_size, |len| len.min(block_size)) + 1
    });
    let mut fresh = move || {
        let mut buffer = fresh();
        buffer.clear();
        buffer.reserve(capacity);
        buffer
    };
    let mut buffer = fresh();
    let mut base = 0u64;
    let mut eof = false;
    loop {
        // One byte more than a block tells whether the block is the last.
        if !eof && buffer.len() <= block_size {
            let wanted = block_size + 1 - buffer.len();
            match (&mut reader).take(wanted as u64).read_to_end(&mut buffer) {
                // Short of what was asked only at the end of the input (`Take` stops at its
                // limit, `read_to_end` goes on through interrupted reads).
                Ok(read) => eof = read < wanted,
                Err(e) => return Err(read_error(base + buffer.len() as u64, e)),
            }
        }
        if buffer.is_empty() {
            return Ok(());
        }
        let len = next_block_len(&buffer, eof, block_size, readings);
        // The last block needs no buffer after it (a small file is one block).
        let last = eof && len == buffer.len();
        let mut next = Vec::new();
        if !last {
            next = fresh();
            next.extend_from_slice(&buffer[len..]);
            buffer.truncate(len);
        }
        if each(buffer, base)?.is_break() || last {
            return Ok(());
        }
        base += len as u64;
        buffer = next;
    }
}

/// Where to end a block taken from the start of `window`.
fn cut_point(window: &[u8], readings: &Readings) -> usize {
    if let Some(newline) = memchr::memrchr(b'\n', window) {
        return newline + 1;
    }
    match window.iter().rposition(|&b| readings.is_cut_safe(b)) {
        Some(at) if at > 0 => at,
        // Nothing can start a sequence here: any cut will do.
        _ => window.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks of `input`, checking that a slice and a reader (fed in odd-sized reads)
    /// are cut the same way.
    fn blocks(input: &[u8], size: usize) -> Vec<Vec<u8>> {
        let readings = Readings::western();
        let mut from_slice = Vec::new();
        let sliced: Result<(), io::Error> = for_each_block_in(input, &readings, size, |b, at| {
            from_slice.push((b.to_vec(), at));
            Ok(())
        });
        assert!(sliced.is_ok());
        // Read with the length known beforehand (a file's), and without (a pipe's).
        for expected in [Some(input.len() as u64), None] {
            let mut from_reader = Vec::new();
            let reading = BlockReading {
                block_size: size,
                expected,
            };
            let read: Result<(), io::Error> = for_each_block_read(
                io::BufReader::with_capacity(3, input),
                &readings,
                reading,
                |b, at| {
                    from_reader.push((b.to_vec(), at));
                    Ok(ControlFlow::Continue(()))
                },
                |_, e| e,
            );
            assert!(read.is_ok());
            assert_eq!(from_slice, from_reader, "{expected:?}");
        }
        from_slice.into_iter().map(|(b, _)| b).collect()
    }

    #[test]
    fn blocks_end_after_newlines_and_cover_the_input() {
        let input = b"one\ntwo\nthree\nfour";
        let got = blocks(input, 6);
        assert_eq!(got.concat(), input);
        assert!(got[..got.len() - 1].iter().all(|b| b.ends_with(b"\n")));
    }

    #[test]
    fn a_long_line_is_cut_between_sequences() {
        let input = "Ã©".repeat(100);
        let got = blocks(input.as_bytes(), 10);
        assert_eq!(got.concat(), input.as_bytes());
        for block in &got {
            assert!(std::str::from_utf8(block).is_ok());
            assert_eq!(block.len() % 4, 0, "cut inside a sequence");
        }
    }

    #[test]
    fn empty_input_gives_no_block() {
        assert!(blocks(b"", 4).is_empty());
    }
}
