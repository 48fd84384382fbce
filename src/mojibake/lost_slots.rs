//! Where a lost byte's slot may be: the search in front of [`super::lost`].
//!
//! A garbled character that lost a byte has a space, a `?` or U+FFFD where the byte was, and
//! that slot always follows a character that stands for a byte `80..FF`, so the byte before
//! it is `80..FF` too. Most spaces of a text follow ASCII: an SQL file has one every few
//! bytes and almost none after a non-ASCII byte. A search that stops at every space (as
//! `memchr3` of the three slot bytes does) pays its set-up for each one; this one tests the
//! pair of bytes, 64 positions at a time where the CPU has AVX2 (detected at run time, as
//! `memchr` does), and stops only where a non-ASCII byte is followed by one that can open a
//! slot. Elsewhere `memchr3` finds the slot bytes and the byte before is looked at. Both give
//! the same positions.

use std::ops::Range;

use super::cpu::has_avx2;

/// U+FFFD in UTF-8.
pub(super) const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// The slots in `range` of `input`, in order: positions after the range's first byte where a
/// space, a `?` or a whole U+FFFD (inside the range) follows a byte `80..FF`.
pub(super) fn lost_slots(input: &[u8], range: Range<usize>) -> LostSlots<'_> {
    let end = range.end.min(input.len());
    let start = range.start.min(end);
    LostSlots {
        input,
        end,
        // The first byte of the range follows nothing in it.
        at: start + 1,
        block: Block::default(),
        vector: has_avx2(),
    }
}

/// The iterator [`lost_slots`] returns.
pub(super) struct LostSlots<'a> {
    input: &'a [u8],
    end: usize,
    /// The next position to test.
    at: usize,
    /// The positions the vector test found in the last block, not yet returned.
    block: Block,
    vector: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Block {
    at: usize,
    bits: u64,
}

impl LostSlots<'_> {
    /// Whether `slot`, whose byte before is known to be `80..FF`, holds what a slot holds.
    #[inline]
    fn holds_slot(&self, slot: usize) -> bool {
        match self.input[slot] {
            b' ' | b'?' => true,
            0xEF => self.input[slot..self.end].starts_with(REPLACEMENT),
            _ => false,
        }
    }

    fn next_portable(&mut self) -> Option<usize> {
        while self.at < self.end {
            let window = &self.input[self.at..self.end];
            let slot = self.at + memchr::memchr3(b' ', b'?', REPLACEMENT[0], window)?;
            self.at = slot + 1;
            if self.input[slot - 1] >= 0x80 && self.holds_slot(slot) {
                return Some(slot);
            }
        }
        None
    }
}

impl Iterator for LostSlots<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if self.vector {
            loop {
                while self.block.bits != 0 {
                    let slot = self.block.at + self.block.bits.trailing_zeros() as usize;
                    self.block.bits &= self.block.bits - 1;
                    if self.holds_slot(slot) {
                        return Some(slot);
                    }
                }
                if self.at + avx2::BLOCK > self.end {
                    break;
                }
                // SAFETY: the CPU was found to have AVX2; `at >= 1` and the block with the
                // byte before it lies in `input` (`at + BLOCK <= end <= input.len()`).
                let found = unsafe { avx2::next_block(self.input, self.at, self.end) };
                match found {
                    Some(block) => {
                        self.at = block.at + avx2::BLOCK;
                        self.block = block;
                    }
                    // Every whole block was tested: the tail is left to the portable search.
                    None => {
                        self.at += (self.end - self.at) / avx2::BLOCK * avx2::BLOCK;
                        break;
                    }
                }
            }
        }
        self.next_portable()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };

    use super::{Block, REPLACEMENT};

    const LANES: usize = 32;
    /// The positions one step tests: two vectors.
    pub(super) const BLOCK: usize = 2 * LANES;

    /// The first block of [`BLOCK`] positions from `at` on, whole before `end`, that holds a
    /// position whose byte may open a slot (a space, a `?`, U+FFFD's first byte) after a byte
    /// `80..FF`; its positions as bits (bit k: the block's start + k).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, `at >= 1` and `end <= input.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn next_block(input: &[u8], mut at: usize, end: usize) -> Option<Block> {
        let splat = |b: u8| _mm256_set1_epi8(b as i8);
        let (space, question, replacement) = (splat(b' '), splat(b'?'), splat(REPLACEMENT[0]));
        let opens = |v: __m256i| -> u32 {
            let either =
                _mm256_or_si256(_mm256_cmpeq_epi8(v, space), _mm256_cmpeq_epi8(v, question));
            _mm256_movemask_epi8(_mm256_or_si256(either, _mm256_cmpeq_epi8(v, replacement))) as u32
        };
        while at + BLOCK <= end {
            // SAFETY: each load of `LANES` bytes from `at - 1 + k`, `k <= BLOCK - LANES + 1`,
            // ends at or before `at + BLOCK <= end <= input.len()`, and `at >= 1`.
            let load = |k: usize| unsafe { _mm256_loadu_si256(input.as_ptr().add(at + k).cast()) };
            let before =
                |k: usize| unsafe { _mm256_loadu_si256(input.as_ptr().add(at - 1 + k).cast()) };
            // The sign bit of each byte before a position: set for `80..FF`.
            let high = u64::from(_mm256_movemask_epi8(before(0)) as u32)
                | (u64::from(_mm256_movemask_epi8(before(LANES)) as u32) << LANES);
            if high != 0 {
                let slots = u64::from(opens(load(0))) | (u64::from(opens(load(LANES))) << LANES);
                let bits = high & slots;
                if bits != 0 {
                    return Some(Block { at, bits });
                }
            }
            at += BLOCK;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, byte by byte.
    fn slots_by_definition(input: &[u8], range: Range<usize>) -> Vec<usize> {
        let end = range.end.min(input.len());
        let start = range.start.min(end);
        (start + 1..end)
            .filter(|&k| input[k - 1] >= 0x80)
            .filter(|&k| match input[k] {
                b' ' | b'?' => true,
                _ => input[k..end].starts_with(REPLACEMENT),
            })
            .collect()
    }

    fn portable(input: &[u8], range: Range<usize>) -> Vec<usize> {
        let mut slots = lost_slots(input, range);
        slots.vector = false;
        slots.collect()
    }

    #[test]
    fn slots_follow_non_ascii_bytes() {
        let text = "a b Ã ok? Ã? Ñ\u{fffd} \u{fffd}".as_bytes();
        let expected = vec![6, 13, 17, 20];
        assert_eq!(slots_by_definition(text, 0..text.len()), expected);
        assert_eq!(
            lost_slots(text, 0..text.len()).collect::<Vec<_>>(),
            expected
        );
        assert_eq!(portable(text, 0..text.len()), expected);
        // U+FFFD cut by the range's end holds no slot; a space after one follows its last byte;
        // a slot at the range's start follows nothing in it.
        assert_eq!(lost_slots(text, 0..19).collect::<Vec<_>>(), vec![6, 13]);
        assert_eq!(
            lost_slots(text, 6..text.len()).collect::<Vec<_>>(),
            vec![13, 17, 20]
        );
    }

    /// Pieces that make slots and near-slots, long enough together for the vector blocks.
    const PIECES: &[&[u8]] = &[
        b" ",
        b"?",
        b"\xEF\xBF\xBD",
        b"\xEF",
        b"\xEF\xBF",
        b"\xC3",
        b"\xA9",
        b"a",
        b"word ",
        b"\xC3\xA9 ",
        b"\xD0\xB8?",
        b"\xFF",
        b"\x7F ",
        b"\x80",
        b"\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The vector search and the portable one find exactly the slots of the definition,
        /// in any range of any bytes, across block boundaries.
        #[test]
        fn both_searches_find_the_slots_of_the_definition(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..160),
            from in 0..200usize,
            to in 0..400usize,
        ) {
            let bytes: Vec<u8> = pieces.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
            let range = from..to.max(from);
            let expected = slots_by_definition(&bytes, range.clone());
            prop_assert_eq!(lost_slots(&bytes, range.clone()).collect::<Vec<_>>(), expected.clone());
            prop_assert_eq!(portable(&bytes, range), expected);
        }

        #[test]
        fn both_searches_agree_on_random_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            from in 0..300usize,
        ) {
            let range = from..bytes.len();
            let expected = slots_by_definition(&bytes, range.clone());
            prop_assert_eq!(lost_slots(&bytes, range.clone()).collect::<Vec<_>>(), expected.clone());
            prop_assert_eq!(portable(&bytes, range), expected);
        }
    }
}
