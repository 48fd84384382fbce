//! The counting sink behind `scan`: what was found, by reading, by layers and by sequence, and
//! what the input is (valid UTF-8 or not, how much non-ASCII text is fine).
//!
//! Counts add up: a file scanned in pieces, or many files, merge with [`Counts::merge`] into
//! exactly what one scan of the whole would give.

use std::collections::BTreeMap;
use std::ops::Range;

use std::convert::Infallible;

use super::codepage::{ReadingMask, Readings};
use super::matcher::RepairedChar;
use super::raw::is_continuation;
use super::scanner::{Run, Sink};
pub use super::sequences::{SequenceCount, SequenceTable};

/// Everything `scan` reports about one input.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Bytes seen.
    pub bytes: u64,
    /// Offset of the first byte that is not part of well-formed UTF-8, if any.
    pub first_invalid_offset: Option<u64>,
    /// Non-ASCII characters (UTF-8 lead bytes `C2..=F4`, counting garbled ones).
    pub non_ascii_chars: u64,
    /// Characters that double encoding garbled and the repair restores.
    pub double_encoded: u64,
    /// Non-ASCII characters inside repaired runs (the garbled form, not the original).
    pub garbled_chars: u64,
    /// Repaired characters by reading and by layers removed; none before the first.
    tallies: Option<Box<Tallies>>,
    /// Repaired characters by garbled form.
    pub sequences: SequenceTable,
    /// Characters decoded from bytes that were not UTF-8 ([`super::raw`]): counted apart from
    /// double encoding, and by sequence in [`Counts::sequences`] with no layer.
    pub not_utf8: u64,
    /// Pieces of bytes that are not UTF-8 left as they are (overlong forms of ASCII, lone
    /// surrogate halves, bytes among control characters, or all of them when asked).
    pub not_utf8_kept: u64,
    /// Runs the pattern matched but the plausibility rule left alone.
    pub left_alone: u64,
    /// Those runs by garbled form, with what the pattern alone would have made of them.
    pub left_alone_sequences: SequenceTable,
    /// Garbled characters that lost a byte on the way ([`super::lost`]), repaired or not:
    /// "partly lost" runs.
    pub lost_bytes: u64,
    /// Those of them repaired, to an inferred character or U+FFFD (counted in
    /// [`Counts::double_encoded`] too).
    pub lost_bytes_repaired: u64,
    /// Where the first [`LOST_OFFSETS`] of them start, in input order.
    pub lost_byte_offsets: Vec<u64>,
}

/// Repaired characters by the reading that explains them and by the layers removed: arrays,
/// because the hot loop adds to them once per repaired character. Made at the first one: a
/// count is made for every file and every block, and most files of a tree repair none.
#[derive(Clone, Debug)]
struct Tallies {
    /// For masks of the first eight pages (with the Western family's bit or not), indexed by
    /// [`direct_slot`].
    by_reading: [u64; 512],
    /// The same for masks of later pages: a short list, a text holds a handful of them.
    by_later_reading: Vec<(ReadingMask, u64)>,
    /// Indexed by layers.
    by_layers: [u64; 256],
}

/// Empty tallies, made on the heap out of line: the caller's frame need not be as large.
#[cold]
#[inline(never)]
fn no_tallies() -> Box<Tallies> {
    Box::new(Tallies {
        by_reading: [0; 512],
        by_later_reading: Vec::new(),
        by_layers: [0; 256],
    })
}

/// How many offsets of partly lost runs [`Counts`] keeps: enough to find them in a file,
/// few enough that a file full of them costs nothing.
pub const LOST_OFFSETS: usize = 100;

impl Counts {
    /// Repaired characters by layers removed, for the layer counts that occur.
    pub fn by_layers(&self) -> BTreeMap<u8, u64> {
        let Some(tallies) = &self.tallies else {
            return BTreeMap::new();
        };
        (0..=u8::MAX)
            .zip(tallies.by_layers)
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// [`Counts::by_layers`] keyed by the number as text, as JSON records write it.
    pub fn by_layers_keyed(&self) -> BTreeMap<String, u64> {
        self.by_layers()
            .into_iter()
            .map(|(layers, n)| (layers.to_string(), n))
            .collect()
    }

    /// True when the input is well-formed UTF-8 throughout.
    pub fn valid_utf8(&self) -> bool {
        self.first_invalid_offset.is_none()
    }

    /// Characters a fix changes: double-encoded ones repaired, and ones decoded from bytes
    /// that were not UTF-8.
    pub fn changes(&self) -> u64 {
        self.double_encoded + self.not_utf8
    }

    /// The counts with bytes that are not UTF-8 left out: for a file in another encoding,
    /// whose non-ASCII bytes are all of that kind, and which `fix` converts only when asked.
    pub fn without_not_utf8(mut self) -> Counts {
        self.not_utf8 = 0;
        self.not_utf8_kept = 0;
        self.sequences.retain(|seq| seq.layers > 0);
        self
    }

    /// Non-ASCII characters that are fine as they are.
    pub fn fine_non_ascii(&self) -> u64 {
        self.non_ascii_chars.saturating_sub(self.garbled_chars)
    }

    /// Takes in the raw bytes of one buffer that starts at `base` in the input: its size, its
    /// UTF-8 validity, its non-ASCII characters. Buffers must be cut between characters.
    /// Returns whether this buffer is well-formed UTF-8, which a scan of it need not find out
    /// again.
    pub fn observe_bytes(&mut self, buffer: &[u8], base: u64) -> bool {
        self.bytes += buffer.len() as u64;
        let (valid, lead_bytes) = validate_and_count(buffer);
        self.non_ascii_chars += lead_bytes;
        // Only a failure asks the slower `compat` validator for the offset.
        if !valid
            && self.first_invalid_offset.is_none()
            && let Err(error) = simdutf8::compat::from_utf8(buffer)
        {
            self.first_invalid_offset = Some(base + error.valid_up_to() as u64);
        }
        valid
    }

    /// Takes in one buffer as [`Counts::observe_bytes`] does, except that the bytes of
    /// `skipped` (ranges of the buffer, in order, apart, each cut between characters where it
    /// meets the rest) are bytes read and nothing else: neither characters nor invalid UTF-8.
    /// For a dump's binary values, which hold bytes, not text. The whole buffer is validated
    /// and counted at once (a few calls per buffer, not a few per value); only where it is
    /// invalid are the skipped ranges looked at for validity. Returns whether the whole
    /// buffer, skipped ranges included, is well-formed UTF-8.
    pub fn observe_bytes_except(
        &mut self,
        buffer: &[u8],
        base: u64,
        skipped: impl Iterator<Item = Range<usize>> + Clone,
    ) -> bool {
        self.bytes += buffer.len() as u64;
        let skipped_lead_bytes: u64 = skipped
            .clone()
            .map(|range| count_lead_bytes(&buffer[range]))
            .sum();
        let (valid, lead_bytes) = validate_and_count(buffer);
        self.non_ascii_chars += lead_bytes.saturating_sub(skipped_lead_bytes);
        if valid || self.first_invalid_offset.is_some() {
            return valid;
        }
        let mut from = 0;
        let mut skipped = skipped.peekable();
        while let Err(error) = simdutf8::compat::from_utf8(&buffer[from..]) {
            let invalid_at = from + error.valid_up_to();
            while skipped.next_if(|range| range.end <= invalid_at).is_some() {}
            match skipped.peek() {
                Some(range) if range.start <= invalid_at => from = range.end,
                _ => {
                    self.first_invalid_offset = Some(base + invalid_at as u64);
                    return false;
                }
            }
        }
        false
    }

    /// Sequences sorted most frequent first (ties by garbled bytes, so reports are stable).
    pub fn top_sequences(&self, limit: usize) -> Vec<(&[u8], &SequenceCount)> {
        self.sequences.top(limit)
    }

    /// How many distinct sequences were repaired (the length of an unbounded top list).
    pub fn distinct_sequences(&self) -> usize {
        self.sequences.len()
    }

    /// How many distinct look-alikes were left alone.
    pub fn distinct_left_alone(&self) -> usize {
        self.left_alone_sequences.len()
    }

    /// Look-alikes left alone, most frequent first.
    pub fn top_left_alone(&self, limit: usize) -> Vec<(&[u8], &SequenceCount)> {
        self.left_alone_sequences.top(limit)
    }

    /// [`Counts::by_reading_names`] with owned keys, as records that are read back hold them.
    pub fn by_reading_keyed(&self, readings: &Readings) -> BTreeMap<String, u64> {
        self.by_reading_names(readings)
            .into_iter()
            .map(|(name, n)| (name.to_owned(), n))
            .collect()
    }

    /// Counts by reading name (`latin1`, `cp1252`, `either`, `mixed`).
    pub fn by_reading_names(&self, readings: &Readings) -> BTreeMap<&'static str, u64> {
        let mut named = BTreeMap::new();
        let Some(tallies) = &self.tallies else {
            return named;
        };
        let direct = (0..512u16)
            .zip(tallies.by_reading.iter())
            .map(|(slot, &n)| {
                let family = if slot >= 256 {
                    ReadingMask::WESTERN_FAMILY.0
                } else {
                    0
                };
                (ReadingMask(slot & 0xFF | family), n)
            });
        for (mask, n) in direct.chain(tallies.by_later_reading.iter().copied()) {
            if n > 0 {
                *named.entry(readings.reading_name(mask)).or_insert(0) += n;
            }
        }
        named
    }

    /// Adds `other` (a later piece of the same input, or another input) into `self`.
    pub fn merge(&mut self, other: Counts) {
        self.first_invalid_offset = match (self.first_invalid_offset, other.first_invalid_offset) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.bytes += other.bytes;
        self.non_ascii_chars += other.non_ascii_chars;
        self.double_encoded += other.double_encoded;
        self.garbled_chars += other.garbled_chars;
        self.left_alone += other.left_alone;
        self.not_utf8 += other.not_utf8;
        self.not_utf8_kept += other.not_utf8_kept;
        match (&mut self.tallies, other.tallies) {
            (_, None) => {}
            (None, theirs) => self.tallies = theirs,
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
        }
        self.sequences.merge(other.sequences);
        self.left_alone_sequences.merge(other.left_alone_sequences);
        self.lost_bytes += other.lost_bytes;
        self.lost_bytes_repaired += other.lost_bytes_repaired;
        self.lost_byte_offsets = first_offsets(
            std::mem::take(&mut self.lost_byte_offsets),
            &other.lost_byte_offsets,
        );
    }
}

/// The first [`LOST_OFFSETS`] offsets of two lists in order, without repeats: the list of
/// both pieces of an input, or of two ranges' records.
pub fn first_offsets(mut a: Vec<u64>, b: &[u64]) -> Vec<u64> {
    a.extend_from_slice(b);
    a.sort_unstable();
    a.dedup();
    a.truncate(LOST_OFFSETS);
    a
}

/// The bytes [`validate_and_count`] reads in one piece: small enough that the count finds
/// them in the first-level cache where the validator left them.
const SURVEYED_PIECE: usize = 16 * 1024;

/// Whether `buffer` is well-formed UTF-8, and its bytes `>= 0xC0` ([`count_lead_bytes`]), in
/// one walk over it: piece by piece, each validated and then counted while it is still in the
/// cache, so that a buffer larger than the cache is read from memory once, not once per pass.
///
/// Pieces end before a byte that is not a continuation byte, so a well-formed buffer is cut
/// between characters and each piece is well-formed, and a buffer that is not has a piece that
/// is not either (two well-formed strings make a well-formed one). Where no such byte lies
/// within three of the piece's end, four continuation bytes in a row already make the buffer
/// ill-formed, and a piece that starts with one is too.
fn validate_and_count(buffer: &[u8]) -> (bool, u64) {
    validate_and_count_by(buffer, SURVEYED_PIECE)
}

/// [`validate_and_count`] by pieces of about `piece` bytes (at least four: the longest
/// character).
fn validate_and_count_by(buffer: &[u8], piece: usize) -> (bool, u64) {
    let mut valid = true;
    let mut lead_bytes = 0;
    let mut rest = buffer;
    while !rest.is_empty() {
        let mut end = rest.len().min(piece);
        if end < rest.len() {
            // Never 0, so that every piece holds a byte.
            end = (end.saturating_sub(3).max(1)..=end)
                .rev()
                .find(|&at| !is_continuation(rest[at]))
                .unwrap_or(end);
        }
        let (piece, after) = rest.split_at(end);
        valid = valid && simdutf8::basic::from_utf8(piece).is_ok();
        lead_bytes += count_lead_bytes(piece);
        rest = after;
    }
    (valid, lead_bytes)
}

/// Counts the bytes `>= 0xC0`: one per non-ASCII character in well-formed UTF-8. The same
/// code compiled for AVX2 where the CPU has it (detected at run time), twice as wide.
fn count_lead_bytes(buffer: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if crate::byte_search::has_avx2() {
        // SAFETY: the CPU was found to have AVX2.
        return unsafe { count_lead_bytes_avx2(buffer) };
    }
    count_lead_bytes_by_words(buffer)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_lead_bytes_avx2(buffer: &[u8]) -> u64 {
    count_lead_bytes_by_words(buffer)
}

/// Eight bytes at a time with plain integer operations, which every x86-64 has and which the
/// compiler vectorises (a `popcnt` or byte-compare loop is slow on the baseline target): a
/// byte is `>= 0xC0` when its two top bits are set; `w & (w << 1)` brings bit 6 of each byte
/// onto its bit 7, and `>> 7` leaves a 0 or 1 in every byte lane. Lanes are summed every 255
/// words, before they can overflow.
#[inline(always)]
fn count_lead_bytes_by_words(buffer: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    let (words, tail) = buffer.as_chunks::<8>();
    let mut total = 0u64;
    for group in words.chunks(255) {
        let lanes = group.iter().fold(0u64, |lanes, word| {
            let w = u64::from_ne_bytes(*word);
            lanes + (((w & (w << 1)) >> 7) & ONES)
        });
        // Eight byte lanes (each <= 255) to four 16-bit lanes, then their sum.
        let pairs = (lanes & LOW_BYTES) + ((lanes >> 8) & LOW_BYTES);
        total += pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48;
    }
    total + tail.iter().filter(|&&b| b >= 0xC0).count() as u64
}

/// Whether [`Counts::add_run`] counts a run's characters by sequence too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequences {
    Counted,
    /// Only the totals: cheaper, for counts that never list sequences.
    Uncounted,
}

impl Counts {
    /// Counts one run of a buffer that starts at `base` in the input, as [`CountingSink`]
    /// does, with or without its sequences.
    pub fn add_run(&mut self, input: &[u8], run: &Run<'_>, base: u64, sequences: Sequences) {
        if run.is_not_utf8() {
            return self.add_not_utf8(input, run, base, sequences);
        }
        if !run.repaired {
            self.left_alone += 1;
        }
        if run.is_lost_byte() {
            self.lost_bytes += 1;
            self.lost_bytes_repaired += u64::from(run.repaired);
            if self.lost_byte_offsets.len() < LOST_OFFSETS {
                self.lost_byte_offsets.push(base + run.span.start as u64);
            }
        }
        let seq = |c: &RepairedChar| SequenceCount {
            original: c.original,
            mask: c.mask,
            layers: c.layers,
            count: 1,
            first_offset: base + c.span.start as u64,
        };
        if !run.repaired {
            if sequences == Sequences::Counted {
                for c in run.chars {
                    let garbled = &input[c.span.clone()];
                    self.left_alone_sequences.record(garbled, || seq(c));
                }
            }
            return;
        }
        let tallies = self.tallies.get_or_insert_with(no_tallies);
        for c in run.chars {
            self.double_encoded += 1;
            self.garbled_chars += u64::from(c.garbled_chars);
            tallies.add_reading(c.mask, 1);
            tallies.by_layers[usize::from(c.layers)] += 1;
            if sequences == Sequences::Counted {
                self.sequences.record(&input[c.span.clone()], || seq(c));
            }
        }
    }
}

/// Where [`Counts`] keeps the count of `mask` in its array: masks of the first eight pages,
/// the Western family's bit as the ninth.
#[inline]
fn direct_slot(mask: ReadingMask) -> Option<usize> {
    let family = mask.0 & ReadingMask::WESTERN_FAMILY.0 != 0;
    let pages = mask.0 & !ReadingMask::WESTERN_FAMILY.0;
    (pages < 256).then(|| usize::from(pages) | if family { 256 } else { 0 })
}

impl Tallies {
    /// Adds `other` (of a later piece, or another input).
    fn merge(&mut self, other: &Tallies) {
        for (mine, theirs) in self.by_reading.iter_mut().zip(other.by_reading.iter()) {
            *mine += theirs;
        }
        for &(mask, n) in &other.by_later_reading {
            self.add_reading(mask, n);
        }
        for (mine, theirs) in self.by_layers.iter_mut().zip(other.by_layers) {
            *mine += theirs;
        }
    }

    /// Adds `n` repaired characters of reading `mask`.
    #[inline]
    fn add_reading(&mut self, mask: ReadingMask, n: u64) {
        if let Some(slot) = direct_slot(mask) {
            self.by_reading[slot] += n;
            return;
        }
        match self
            .by_later_reading
            .iter_mut()
            .find(|(known, _)| *known == mask)
        {
            Some((_, count)) => *count += n,
            None => self.by_later_reading.push((mask, n)),
        }
    }
}

impl Counts {
    /// [`Counts::add_run`] for a run of bytes that were not UTF-8.
    fn add_not_utf8(&mut self, input: &[u8], run: &Run<'_>, base: u64, sequences: Sequences) {
        if !run.repaired {
            self.not_utf8_kept += 1;
        }
        for c in run.chars {
            // Not counted as non-ASCII text that is fine, whether converted or kept.
            self.garbled_chars += u64::from(c.garbled_chars);
            if !run.repaired {
                continue;
            }
            self.not_utf8 += 1;
            if sequences == Sequences::Counted {
                let seq = || SequenceCount {
                    original: c.original,
                    mask: c.mask,
                    layers: 0,
                    count: 1,
                    first_offset: base + c.span.start as u64,
                };
                self.sequences.record(&input[c.span.clone()], seq);
            }
        }
    }
}

/// The sink that fills a [`Counts`]; `base` is the offset of the scanned buffer in the input.
pub struct CountingSink<'c> {
    pub counts: &'c mut Counts,
    pub base: u64,
    /// Whether repaired characters are counted by garbled form too.
    pub sequences: Sequences,
}

impl Sink for CountingSink<'_> {
    type Error = Infallible;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
        self.counts.add_run(input, run, self.base, self.sequences);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn skipped_ranges_are_bytes_only() {
        let observe = |buffer: &[u8], skipped: &[(usize, usize)]| {
            let mut counts = Counts::default();
            counts.observe_bytes_except(buffer, 100, skipped.iter().map(|&(a, b)| a..b));
            (
                counts.bytes,
                counts.first_invalid_offset,
                counts.non_ascii_chars,
            )
        };
        // 'é' text, then 'xx\xFF\xC3\xA9\xC0' binary, then 'ü' text.
        let buffer = b"\xC3\xA9 'xx\xFF\xC3\xA9\xC0' \xC3\xBC";
        assert_eq!(observe(buffer, &[(4, 10)]), (14, None, 2));
        assert_eq!(observe(buffer, &[]), (14, Some(106), 5));
        // Invalid text before and after a skipped range is still found.
        let before = b"\xFF 'xx\xFF' \xC3\xBC";
        assert_eq!(observe(before, &[(3, 6)]), (10, Some(100), 2));
        let after = b"\xC3\xA9 'xx\xFF' \xE2\x82 ";
        assert_eq!(observe(after, &[(4, 7)]), (12, Some(109), 2));
        let between = b"'\xFF' \xFF '\xFE'";
        assert_eq!(observe(between, &[(1, 2), (7, 8)]), (9, Some(104), 1));
    }

    #[test]
    fn lead_bytes_are_counted_like_a_plain_loop() {
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(40_000).collect();
        bytes.extend("é日😀 aÃ©".as_bytes());
        for start in 0..9 {
            let slice = &bytes[start..];
            let plain = slice.iter().filter(|&&b| b >= 0xC0).count() as u64;
            assert_eq!(count_lead_bytes(slice), plain);
        }
    }

    /// Bytes mostly of whole characters, some of them cut, and stray bytes: pieces then end
    /// in every place a character can be cut.
    fn text_and_strays() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
            4 => prop::sample::select(vec!["a", "é", "日", "😀", "Ã©"])
                .prop_map(|s| s.as_bytes().to_vec()),
            1 => any::<char>().prop_map(|c| {
                let bytes = c.to_string().into_bytes();
                bytes[..bytes.len().div_ceil(2)].to_vec()
            }),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..200).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// Piece by piece, the walk says what one validation and one count of the whole say.
        #[test]
        fn validated_and_counted_by_pieces_as_a_whole(
            bytes in text_and_strays(),
            piece in 4usize..20,
        ) {
            let whole = (
                simdutf8::basic::from_utf8(&bytes).is_ok(),
                bytes.iter().filter(|&&b| b >= 0xC0).count() as u64,
            );
            prop_assert_eq!(validate_and_count_by(&bytes, piece), whole);
        }
    }
}
