//! Feeds a reader to the scanner in blocks of bounded size, each cut where no double-encoded
//! sequence and no UTF-8 character can be split.
//!
//! A block ends after its last newline, so that the plausibility rule, which looks along the
//! line, sees the same context as in one pass over the whole input. A block with no newline
//! (a very long line) is cut just before its last byte that [`Readings::is_cut_safe`] allows:
//! ASCII, or a lead byte that only ever starts a sequence. Memory stays at about two blocks
//! whatever the input's size or line length; results depend only on the input and
//! [`BLOCK_SIZE`], never on how the reader happens to split its reads.

use std::io::{self, Read};

use crate::mojibake::Readings;

/// Target size of one block.
pub const BLOCK_SIZE: usize = 8 << 20;

/// Reads `reader` to the end and calls `each` with every block and its offset in the input.
/// A read error is returned with the offset reached.
pub fn for_each_block<R: Read, E>(
    mut reader: R,
    readings: &Readings,
    block_size: usize,
    mut each: impl FnMut(&[u8], u64) -> Result<(), E>,
    read_error: impl Fn(u64, io::Error) -> E,
) -> Result<(), E> {
    let block_size = block_size.max(1);
    let mut buffer: Vec<u8> = Vec::with_capacity(block_size * 2);
    let mut base = 0u64;
    let mut eof = false;
    loop {
        while !eof && buffer.len() < block_size {
            let filled = buffer.len();
            buffer.resize(filled + block_size, 0);
            match reader.read(&mut buffer[filled..]) {
                Ok(0) => {
                    buffer.truncate(filled);
                    eof = true;
                }
                Ok(n) => buffer.truncate(filled + n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => buffer.truncate(filled),
                Err(e) => return Err(read_error(base + filled as u64, e)),
            }
        }
        if buffer.is_empty() {
            return Ok(());
        }
        let cut = if eof {
            buffer.len()
        } else {
            cut_point(&buffer, readings)
        };
        each(&buffer[..cut], base)?;
        base += cut as u64;
        buffer.drain(..cut);
    }
}

/// Where to end a block taken from the start of `buffer`.
pub fn cut_point(buffer: &[u8], readings: &Readings) -> usize {
    if let Some(newline) = memchr::memrchr(b'\n', buffer) {
        return newline + 1;
    }
    match buffer.iter().rposition(|&b| readings.is_cut_safe(b)) {
        Some(at) if at > 0 => at,
        // Nothing can start a sequence here: any cut will do.
        _ => buffer.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(input: &[u8], size: usize) -> Vec<Vec<u8>> {
        let readings = Readings::western();
        let mut out = Vec::new();
        let result: Result<(), io::Error> = for_each_block(
            input,
            &readings,
            size,
            |block, _| {
                out.push(block.to_vec());
                Ok(())
            },
            |_, e| e,
        );
        assert!(result.is_ok());
        out
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
