//! The positions where two adjacent bytes belong to two sets of byte values.
//!
//! Several questions the core asks of every file are of this shape: where a space, a `?` or
//! U+FFFD's first byte follows a byte `80..FF` (the slot of a lost byte), where a line starts
//! with a byte that can open an SQL statement. Walking every space, or every line, with a
//! `memchr` per hit pays the search's set-up for each, and ASCII text has one every few bytes.
//! This search tests both bytes of 64 positions a step and stops only where both belong.
//!
//! A set is data ([`ByteSet`]): a table of its members for the byte test, and for the vector
//! test two tables of 16 entries indexed by a byte's low and high halves (nibbles), whose
//! entries share a bit exactly when the byte is a member (the classification `simdjson` and
//! Hyperscan's "Teddy" use). That holds for any set whose members have at most eight
//! distinct high nibbles, which [`ByteSet::new`] checks when the set is made (at compile
//! time for a `const`).
//!
//! The second byte of a pair may also be looked at with the byte after it, as a two-byte
//! character ([`TwoByteChars`]): a set of characters `C0..DF xx` is too fine for a set of
//! first bytes (Cyrillic letters and the Cyrillic characters a Windows page gives to bytes
//! `80..BF` all start with `D0` or `D1`), and is narrowed by the eighth of `80..BF` the second
//! byte lies in.
//!
//! Or the second byte may be looked at with the byte after it as a pair of bytes from a small
//! set ([`Bigrams`]): a line that starts with `co`, `cr`, `in` or `se`, where a line that
//! starts with `c`, `i` or `s` would stop the search at most lines of a text.

use std::ops::Range;

use super::has_avx2;

/// A set of byte values, for [`pairs`].
#[derive(Clone, Debug)]
pub(crate) struct ByteSet {
    members: [bool; 256],
    /// The nibble tables, as the vector test loads them: for each low nibble, the bits of
    /// the high nibbles it makes a member with; and for each high nibble, its bit (bit `k`
    /// for the `k`-th distinct high nibble of the members). Each twice over, once per 128-bit
    /// lane, made with the set rather than at every call of the search.
    vector: [[u8; 32]; 2],
    /// The set as one span of values, lowest and highest, when it is one: a test of two
    /// comparisons where the tables take a shuffle for each half of a byte.
    span: Option<(u8, u8)>,
}

impl ByteSet {
    /// The set of the bytes `lowest..=highest` and of `others`.
    ///
    /// # Panics
    ///
    /// If the members have more than eight distinct high nibbles (at compile time when the
    /// set is a constant).
    pub(crate) const fn new(lowest: u8, highest: u8, others: &[u8]) -> ByteSet {
        let mut members = [false; 256];
        let mut b = lowest as usize;
        while b <= highest as usize && lowest <= highest {
            members[b] = true;
            b += 1;
        }
        let mut i = 0;
        while i < others.len() {
            members[others[i] as usize] = true;
            i += 1;
        }
        let (mut high, mut low) = ([0u8; 16], [0u8; 16]);
        let mut bits = 0;
        let mut h = 0;
        while h < 16 {
            let mut l = 0;
            while l < 16 {
                if members[h << 4 | l] {
                    if high[h] == 0 {
                        assert!(bits < 8, "a byte set has at most eight high nibbles");
                        high[h] = 1 << bits;
                        bits += 1;
                    }
                    low[l] |= high[h];
                }
                l += 1;
            }
            h += 1;
        }
        let mut vector = [[0u8; 32]; 2];
        let mut i = 0;
        while i < 32 {
            vector[0][i] = low[i % 16];
            vector[1][i] = high[i % 16];
            i += 1;
        }
        let span = match others.is_empty() && lowest <= highest {
            true => Some((lowest, highest)),
            false => None,
        };
        ByteSet {
            members,
            vector,
            span,
        }
    }

    #[inline]
    pub(crate) fn contains(&self, byte: u8) -> bool {
        self.members[usize::from(byte)]
    }
}

/// A set of two-byte characters (`C0..DF` then `80..BF`), coarsened for [`Then::ByteOrChar`]:
/// for each first byte, the eighths of `80..BF` (`80..87`, `88..8F`, ..., `B8..BF`) that one
/// of its characters' second byte lies in. It holds every character put in, and the others
/// of their eighths.
#[derive(Clone, Debug, Default)]
pub(crate) struct TwoByteChars {
    /// The eighths of first bytes `C0..CF`, then of `D0..DF`, by the first byte's low nibble
    /// (bit `k` for the eighth `80 + 8k..=87 + 8k`), each table twice over, as the vector test
    /// loads them (one copy per 128-bit lane).
    vector: [[u8; 32]; 2],
}

impl TwoByteChars {
    /// The set that holds `chars`, as their two bytes; other byte pairs are left out.
    pub(crate) fn new(chars: impl IntoIterator<Item = (u8, u8)>) -> TwoByteChars {
        let mut set = TwoByteChars::default();
        for (first, second) in chars {
            if first & 0xE0 == 0xC0 && second & 0xC0 == 0x80 {
                let table = &mut set.vector[usize::from((first >> 4) & 1)];
                let low = usize::from(first & 0x0F);
                let bit = 1 << ((second >> 3) & 7);
                table[low] |= bit;
                table[16 + low] |= bit;
            }
        }
        set
    }

    /// Whether `first`, `second` may be one of the set's characters.
    #[inline]
    pub(crate) fn may_hold(&self, first: u8, second: u8) -> bool {
        first & 0xE0 == 0xC0
            && second & 0xC0 == 0x80
            && self.vector[usize::from((first >> 4) & 1)][usize::from(first & 0x0F)]
                & (1 << ((second >> 3) & 7))
                != 0
    }
}

/// A set of pairs of bytes, made of at most eight classes, each every pair of a byte of one
/// set followed by a byte of another, for [`Then::Bigram`]. Each set of a class must be a
/// product of high and low nibbles (`{c, C}` is `{4, 6} x {3}`), which [`Bigrams::new`]
/// checks when the set is made (at compile time for a `const`): then a class is told by two
/// nibble lookups per byte, exactly.
#[derive(Clone, Debug)]
pub(crate) struct Bigrams {
    /// The classes of each first byte, then of each second byte, as bits (bit `k`: class `k`).
    classes: [[u8; 256]; 2],
    /// The nibble tables of the first bytes (low, high), then of the second bytes, each
    /// twice over, as the vector test loads them.
    vector: [[u8; 32]; 4],
}

/// Every byte value, for a class of [`Bigrams`] whose second byte may be any.
pub(crate) const ANY_BYTE: [u8; 256] = {
    let mut all = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        all[b] = b as u8;
        b += 1;
    }
    all
};

impl Bigrams {
    /// The set of the pairs `(first, second)` of each class `(firsts, seconds)`.
    ///
    /// # Panics
    ///
    /// If there are more than eight classes, or a class's set of first or second bytes is not
    /// the product of a set of high nibbles and a set of low ones (at compile time when the
    /// set is a constant).
    pub(crate) const fn new(pairs: &[(&[u8], &[u8])]) -> Bigrams {
        assert!(
            pairs.len() <= 8,
            "a set of byte pairs has at most eight classes"
        );
        let mut classes = [[0u8; 256]; 2];
        let mut vector = [[0u8; 32]; 4];
        let mut k = 0;
        while k < pairs.len() {
            let sets = [pairs[k].0, pairs[k].1];
            let mut side = 0;
            while side < 2 {
                let (mut low, mut high) = ([false; 16], [false; 16]);
                let mut i = 0;
                while i < sets[side].len() {
                    let b = sets[side][i] as usize;
                    classes[side][b] |= 1 << k;
                    low[b & 0x0F] = true;
                    high[b >> 4] = true;
                    i += 1;
                }
                // The product of the nibbles seen must hold no byte that was not put in.
                let mut b = 0;
                while b < 256 {
                    assert!(
                        !(low[b & 0x0F] && high[b >> 4]) || classes[side][b] & 1 << k != 0,
                        "each set of a class of byte pairs is a product of nibbles"
                    );
                    b += 1;
                }
                let mut n = 0;
                while n < 32 {
                    if low[n % 16] {
                        vector[2 * side][n] |= 1 << k;
                    }
                    if high[n % 16] {
                        vector[2 * side + 1][n] |= 1 << k;
                    }
                    n += 1;
                }
                side += 1;
            }
            k += 1;
        }
        Bigrams { classes, vector }
    }

    /// Whether `first` followed by `second` is one of the pairs.
    #[inline]
    pub(crate) fn holds(&self, first: u8, second: u8) -> bool {
        self.classes[0][usize::from(first)] & self.classes[1][usize::from(second)] != 0
    }
}

/// A set of non-ASCII characters, looked for where one starts right after another non-ASCII
/// character: where the second character of a garbled form may stand (one that some code
/// page gives to a continuation byte, right after one it gives to a lead byte). The reading
/// choice bounds what each page could explain by it, and the scan of a page with no vector
/// test of its own finds where a run may start by it.
#[derive(Clone, Debug)]
pub(crate) struct CharsAfterNonAscii {
    /// The first bytes of the characters longer than two bytes.
    longer_firsts: ByteSet,
    /// The two-byte characters.
    two: TwoByteChars,
}

/// The last byte of every non-ASCII character.
const CONTINUATION_BYTES: ByteSet = ByteSet::new(0x80, 0xBF, &[]);

impl CharsAfterNonAscii {
    /// The set of `chars` (ASCII ones are left out: none follows a garbled lead).
    pub(crate) fn new(chars: impl IntoIterator<Item = char>) -> CharsAfterNonAscii {
        let (mut firsts, mut twos) = (Vec::new(), Vec::new());
        let mut utf8 = [0u8; 4];
        for ch in chars {
            match *ch.encode_utf8(&mut utf8).as_bytes() {
                [first, second] => twos.push((first, second)),
                [first, _, ..] => firsts.push(first),
                _ => {}
            }
        }
        firsts.sort_unstable();
        firsts.dedup();
        CharsAfterNonAscii {
            longer_firsts: ByteSet::new(1, 0, &firsts),
            two: TwoByteChars::new(twos),
        }
    }

    /// The positions in `range` of `haystack`, in order, where one of the characters may
    /// start right after a byte `80..BF` (the last byte of a non-ASCII character): every
    /// position where one does, and a few where none does (a two-byte character is told by
    /// the eighth of `80..BF` its second byte is in, a longer one by its first byte).
    pub(crate) fn positions<'a>(&'a self, haystack: &'a [u8], range: Range<usize>) -> Pairs<'a> {
        let then = Then::ByteOrChar(&self.longer_firsts, &self.two);
        pairs(&CONTINUATION_BYTES, then, haystack, range)
    }
}

/// The positions `p` in `range` of `haystack`, after its first, where `haystack[p - 1]` is in
/// `before` and `haystack[p]` passes `then` (with the byte after it, in the haystack, past the
/// range if need be, for the tests that look at it), in order.
pub(crate) fn pairs<'a>(
    before: &'a ByteSet,
    then: Then<'a>,
    haystack: &'a [u8],
    range: Range<usize>,
) -> Pairs<'a> {
    let end = range.end.min(haystack.len());
    let start = range.start.min(end);
    let vector_end = match then.looks_after() {
        true => end.min(haystack.len().saturating_sub(1)),
        false => end,
    };
    Pairs {
        before,
        then,
        haystack,
        end,
        vector_end,
        // The range's first byte follows nothing in it.
        next: start + 1,
        block: Block::default(),
        vector: has_avx2(),
    }
}

/// What [`pairs`] tests a position's byte for, after a byte of the set before.
#[derive(Clone, Copy)]
pub(crate) enum Then<'a> {
    /// The byte is in a set.
    Byte(&'a ByteSet),
    /// The byte is in a set, or it and the one after it may be one of a set's two-byte
    /// characters.
    ByteOrChar(&'a ByteSet, &'a TwoByteChars),
    /// The byte and the one after it are one of a set of pairs.
    Bigram(&'a Bigrams),
}

impl Then<'_> {
    /// Whether the test looks at the byte after the position too.
    fn looks_after(self) -> bool {
        !matches!(self, Then::Byte(_))
    }
}

/// The iterator [`pairs`] returns.
pub(crate) struct Pairs<'a> {
    before: &'a ByteSet,
    then: Then<'a>,
    haystack: &'a [u8],
    end: usize,
    /// Where the vector test stops: the end, or a byte before the haystack's end when the byte
    /// after a position is looked at too.
    vector_end: usize,
    /// The next position to test.
    next: usize,
    /// The positions the vector test found in the last block, not yet returned.
    block: Block,
    vector: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Block {
    at: usize,
    bits: u64,
}

impl<'a> Pairs<'a> {
    fn next_portable(&mut self) -> Option<usize> {
        let (haystack, before) = (self.haystack, self.before);
        let after = |p: usize| haystack.get(p + 1).copied();
        // A loop of its own for each test: the search most callers make, one byte, runs on
        // the short windows (a lost byte's) the vector test leaves whole to this one.
        let found = match self.then {
            Then::Byte(at) => (self.next..self.end)
                .find(|&p| at.contains(haystack[p]) && before.contains(haystack[p - 1])),
            Then::ByteOrChar(at, two) => (self.next..self.end).find(|&p| {
                let byte = haystack[p];
                (at.contains(byte) || after(p).is_some_and(|after| two.may_hold(byte, after)))
                    && before.contains(haystack[p - 1])
            }),
            Then::Bigram(bigrams) => (self.next..self.end).find(|&p| {
                after(p).is_some_and(|after| bigrams.holds(haystack[p], after))
                    && before.contains(haystack[p - 1])
            }),
        };
        self.next = found.map_or(self.end, |p| p + 1);
        found
    }

    /// The next block of the vector test from `next` on, with `before` tested as given.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, and `next + BLOCK <= vector_end`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    unsafe fn vector_block<B: avx2::Members>(&self, before: B) -> Option<Block> {
        let (haystack, next, end) = (self.haystack, self.next, self.vector_end);
        // SAFETY: `next >= 1` always, and `vector_end` is at most `haystack.len()`, less
        // than it when the byte after a position is looked at; the rest the caller promised.
        // Each test of the second byte is compiled on its own.
        unsafe {
            match self.then {
                Then::Byte(at) => {
                    avx2::next_block(before, avx2::Tables::of(at), haystack, next, end)
                }
                Then::ByteOrChar(at, two) => avx2::next_block(
                    before,
                    avx2::TablesOrEighths::of(at, two),
                    haystack,
                    next,
                    end,
                ),
                Then::Bigram(bigrams) => {
                    avx2::next_block(before, avx2::Classes::of(bigrams), haystack, next, end)
                }
            }
        }
    }

    /// The same search without the vector test: what other CPUs run, and the tests' oracle.
    #[cfg(test)]
    pub(crate) fn portable(mut self) -> Self {
        self.vector = false;
        self
    }
}

impl Iterator for Pairs<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if self.vector {
            if self.block.bits != 0 {
                let p = self.block.at + self.block.bits.trailing_zeros() as usize;
                self.block.bits &= self.block.bits - 1;
                return Some(p);
            }
            if self.next + avx2::BLOCK <= self.vector_end {
                // SAFETY: the CPU was found to have AVX2; `next >= 1`, and
                // `next + BLOCK <= vector_end`, which is at most `haystack.len()`, and less
                // than it when the byte after a position is looked at. A set that is one span
                // of values takes the cheaper test.
                let found = unsafe {
                    match self.before.span {
                        Some((lowest, highest)) => {
                            self.vector_block(avx2::Span::of(lowest, highest))
                        }
                        None => self.vector_block(avx2::Tables::of(self.before)),
                    }
                };
                match found {
                    Some(mut block) => {
                        self.next = block.at + avx2::BLOCK;
                        let p = block.at + block.bits.trailing_zeros() as usize;
                        block.bits &= block.bits - 1;
                        self.block = block;
                        return Some(p);
                    }
                    // Every whole block was tested: the tail is left to the byte test.
                    None => self.next += (self.vector_end - self.next) / avx2::BLOCK * avx2::BLOCK,
                }
            }
        }
        self.next_portable()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_max_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8,
        _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_sub_epi8,
        _mm256_testz_si256, _mm256_xor_si256,
    };

    use super::{Bigrams, Block, ByteSet, TwoByteChars};

    const LANES: usize = 32;
    /// The positions one step tests: two vectors.
    pub(super) const BLOCK: usize = 2 * LANES;

    /// Two tables of 32 bytes as vectors.
    #[target_feature(enable = "avx2")]
    fn vectors(tables: &[[u8; 32]; 2]) -> [__m256i; 2] {
        // SAFETY: each table is 32 bytes, one unaligned load.
        tables
            .each_ref()
            .map(|table| unsafe { _mm256_loadu_si256(table.as_ptr().cast()) })
    }

    /// A test of 32 bytes at once for a set's members.
    pub(super) trait Members: Copy {
        /// All ones in each of the 32 bytes of `v` that is a member, zero in the others.
        /// (Masks, not bits: the two tests of a block are combined before one `movemask`,
        /// which the compiler keeps as it is written.)
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        unsafe fn members(self, v: __m256i) -> __m256i;
    }

    /// The bits each byte of `v` has in both nibble tables: `low` indexed by its low nibble,
    /// `high` by its high one (each table in both 128-bit lanes: the shuffle looks up within
    /// a lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn by_nibbles(v: __m256i, low: __m256i, high: __m256i) -> __m256i {
        let nibble = _mm256_set1_epi8(0x0F);
        let high_nibbles = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        _mm256_and_si256(
            _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble)),
            _mm256_shuffle_epi8(high, high_nibbles),
        )
    }

    /// All ones in each byte of `classes` that is not zero (a byte that shares a bit with
    /// what it was tested against), zero in the others.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shared_bits(classes: __m256i) -> __m256i {
        let none = _mm256_cmpeq_epi8(classes, _mm256_setzero_si256());
        _mm256_xor_si256(none, _mm256_set1_epi8(-1))
    }

    /// A set's two nibble tables, each in both 128-bit lanes (the shuffle looks up within a
    /// lane).
    #[derive(Clone, Copy)]
    pub(super) struct Tables {
        low: __m256i,
        high: __m256i,
    }

    impl Tables {
        #[target_feature(enable = "avx2")]
        pub(super) fn of(set: &ByteSet) -> Tables {
            let [low, high] = vectors(&set.vector);
            Tables { low, high }
        }
    }

    /// A set that is one span of values: its lowest, and how far the highest lies above it.
    #[derive(Clone, Copy)]
    pub(super) struct Span {
        lowest: __m256i,
        width: __m256i,
    }

    impl Span {
        #[target_feature(enable = "avx2")]
        pub(super) fn of(lowest: u8, highest: u8) -> Span {
            Span {
                lowest: _mm256_set1_epi8(lowest as i8),
                width: _mm256_set1_epi8(highest.wrapping_sub(lowest) as i8),
            }
        }
    }

    impl Members for Span {
        /// A byte is a member when its distance above the lowest (wrapping) is at most the
        /// width, unsigned: the larger of the two is the width.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn members(self, v: __m256i) -> __m256i {
            let above = _mm256_sub_epi8(v, self.lowest);
            _mm256_cmpeq_epi8(_mm256_max_epu8(above, self.width), self.width)
        }
    }

    impl Members for Tables {
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn members(self, v: __m256i) -> __m256i {
            shared_bits(by_nibbles(v, self.low, self.high))
        }
    }

    /// A [`TwoByteChars`]'s eighths, those of first bytes `C0..CF` and of `D0..DF`, each in
    /// both lanes.
    #[derive(Clone, Copy)]
    struct Eighths {
        c: __m256i,
        d: __m256i,
    }

    impl Eighths {
        #[target_feature(enable = "avx2")]
        fn of(set: &TwoByteChars) -> Eighths {
            let [c, d] = vectors(&set.vector);
            Eighths { c, d }
        }

        /// A bit for each of the 32 bytes of `firsts` that, with the byte after it (the same
        /// place in `seconds`), may be one of the set's characters.
        #[target_feature(enable = "avx2")]
        fn members(self, firsts: __m256i, seconds: __m256i) -> __m256i {
            let nibble = _mm256_set1_epi8(0x0F);
            let top = |v: __m256i, mask: u8, value: u8| {
                _mm256_cmpeq_epi8(
                    _mm256_and_si256(v, _mm256_set1_epi8(mask as i8)),
                    _mm256_set1_epi8(value as i8),
                )
            };
            // The eighths of each first byte's characters: by its low nibble, from the table
            // of its high one; none for a byte that starts no two-byte character.
            let low = _mm256_and_si256(firsts, nibble);
            let by_high = _mm256_blendv_epi8(
                _mm256_shuffle_epi8(self.c, low),
                _mm256_shuffle_epi8(self.d, low),
                top(firsts, 0x10, 0x10),
            );
            let allowed = _mm256_and_si256(by_high, top(firsts, 0xE0, 0xC0));
            // The eighth of each second byte, as one bit; none for a byte outside `80..BF`.
            let eighth = _mm256_and_si256(_mm256_srli_epi16(seconds, 3), nibble);
            let one_bit = _mm256_setr_epi8(
                1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128,
                0, 0, 0, 0, 0, 0, 0, 0,
            );
            let bit = _mm256_and_si256(
                _mm256_shuffle_epi8(one_bit, eighth),
                top(seconds, 0xC0, 0x80),
            );
            shared_bits(_mm256_and_si256(allowed, bit))
        }
    }

    /// A test of 32 positions at once for what a position's byte (with the one after it, for
    /// some tests) is looked for, after a byte of the set before.
    pub(super) trait Seconds: Copy {
        /// Whether the test looks at the byte after each position.
        const AFTER: bool;

        /// A bit for each of the 32 bytes of `at` that passes, with the byte after it at the
        /// same place in `after` (unspecified unless [`Seconds::AFTER`]).
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        unsafe fn members(self, at: __m256i, after: __m256i) -> __m256i;
    }

    impl Seconds for Tables {
        const AFTER: bool = false;

        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn members(self, at: __m256i, _: __m256i) -> __m256i {
            // SAFETY: the CPU has AVX2, as this function's caller promised.
            unsafe { Members::members(self, at) }
        }
    }

    /// A set of bytes, or of two-byte characters.
    #[derive(Clone, Copy)]
    pub(super) struct TablesOrEighths {
        at: Tables,
        two: Eighths,
    }

    impl TablesOrEighths {
        #[target_feature(enable = "avx2")]
        pub(super) fn of(at: &ByteSet, two: &TwoByteChars) -> TablesOrEighths {
            TablesOrEighths {
                at: Tables::of(at),
                two: Eighths::of(two),
            }
        }
    }

    impl Seconds for TablesOrEighths {
        const AFTER: bool = true;

        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn members(self, at: __m256i, after: __m256i) -> __m256i {
            // SAFETY: the CPU has AVX2, as this function's caller promised.
            let byte = unsafe { Members::members(self.at, at) };
            _mm256_or_si256(byte, self.two.members(at, after))
        }
    }

    /// A [`Bigrams`]'s nibble tables: the classes of each first byte by its low and its high
    /// nibble, then of each second byte.
    #[derive(Clone, Copy)]
    pub(super) struct Classes {
        tables: [__m256i; 4],
    }

    impl Classes {
        #[target_feature(enable = "avx2")]
        pub(super) fn of(set: &Bigrams) -> Classes {
            // SAFETY: each table is 32 bytes, one unaligned load.
            let tables = (set.vector)
                .each_ref()
                .map(|table| unsafe { _mm256_loadu_si256(table.as_ptr().cast()) });
            Classes { tables }
        }
    }

    impl Seconds for Classes {
        const AFTER: bool = true;

        /// A pair is held when its first byte's classes and its second's share one.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn members(self, at: __m256i, after: __m256i) -> __m256i {
            let [first_low, first_high, second_low, second_high] = self.tables;
            shared_bits(_mm256_and_si256(
                by_nibbles(at, first_low, first_high),
                by_nibbles(after, second_low, second_high),
            ))
        }
    }

    /// The first block of [`BLOCK`] positions from `next` on, whole before `end`, that holds a
    /// position that passes `seconds` after a byte in `before`; its positions as bits (bit
    /// `k`: the block's start + `k`).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, `next >= 1` and `end <= haystack.len()`, and
    /// `end < haystack.len()` when `S` looks at the byte after a position.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn next_block<B: Members, S: Seconds>(
        before: B,
        seconds: S,
        haystack: &[u8],
        mut next: usize,
        end: usize,
    ) -> Option<Block> {
        while next + BLOCK <= end {
            // SAFETY: each load of `LANES` bytes from `next - 1 + k` ends at
            // `next + BLOCK + k - LANES - 1`: for `k <= LANES + 1`, at or before
            // `next + BLOCK <= end <= haystack.len()`; for `k = LANES + 2` (only when `S`
            // looks after), before `end + 1 <= haystack.len()`. And `next >= 1`.
            let load = |k: usize| unsafe {
                _mm256_loadu_si256(haystack.as_ptr().add(next - 1 + k).cast())
            };
            let after = |k: usize| match S::AFTER {
                true => load(k),
                false => _mm256_setzero_si256(),
            };
            // SAFETY: the CPU has AVX2, as this function's caller promised.
            let (firsts_low, firsts_high) =
                unsafe { (before.members(load(0)), before.members(load(LANES))) };
            let firsts = _mm256_or_si256(firsts_low, firsts_high);
            if _mm256_testz_si256(firsts, firsts) == 0 {
                // SAFETY: as above.
                let (seconds_low, seconds_high) = unsafe {
                    (
                        seconds.members(load(1), after(2)),
                        seconds.members(load(LANES + 1), after(LANES + 2)),
                    )
                };
                let bits = |firsts, seconds| {
                    _mm256_movemask_epi8(_mm256_and_si256(firsts, seconds)) as u32
                };
                let (low, high) = (
                    bits(firsts_low, seconds_low),
                    bits(firsts_high, seconds_high),
                );
                if low | high != 0 {
                    // Opaque to the compiler, which would otherwise join the two masks as
                    // 64 lanes of one bit and take them apart byte by byte (140 instructions
                    // on AVX2 for each block found).
                    let low = std::hint::black_box(low);
                    let bits = u64::from(low) | u64::from(high) << LANES;
                    return Some(Block { at: next, bits });
                }
            }
            next += BLOCK;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, byte by byte.
    fn pairs_by_definition(
        before: &ByteSet,
        at: &ByteSet,
        two: Option<&Two>,
        haystack: &[u8],
        range: Range<usize>,
    ) -> Vec<usize> {
        let end = range.end.min(haystack.len());
        let start = range.start.min(end);
        // The characters' eighths, by definition; no vector, no table.
        let two_byte = |p: usize| {
            let (Some(two), Some(&after)) = (two, haystack.get(p + 1)) else {
                return false;
            };
            let eighth = |b: u8| (b - 0x80) / 8;
            (0xC0..=0xDF).contains(&haystack[p])
                && (0x80..=0xBF).contains(&after)
                && two
                    .chars
                    .iter()
                    .any(|&(first, second)| first == haystack[p] && eighth(second) == eighth(after))
        };
        (start + 1..end)
            .filter(|&p| {
                before.contains(haystack[p - 1]) && (at.contains(haystack[p]) || two_byte(p))
            })
            .collect()
    }

    /// A set of two-byte characters and the characters it was made of, for the definition.
    #[derive(Debug)]
    struct Two {
        set: TwoByteChars,
        chars: Vec<(u8, u8)>,
    }

    /// Every pair of bytes is held exactly when it is a two-byte character whose first byte
    /// is a character's put in, and whose second byte lies in the same eighth of `80..BF`;
    /// so every character put in is held.
    #[test]
    fn two_byte_sets_hold_the_eighths_of_their_characters() {
        let sets: [&[(u8, u8)]; 4] = [
            &[],
            &[
                (0xD0, 0x81),
                (0xD1, 0x96),
                (0xC2, 0xBF),
                (0xC0, 0x80),
                (0xDF, 0x87),
            ],
            // Not characters: left out.
            &[(0x41, 0x81), (0xE2, 0x80), (0xD0, 0x41), (0xD0, 0xC0)],
            &[(0xCE, 0x84), (0xCE, 0xA9), (0xCF, 0x80), (0xC5, 0x9F)],
        ];
        for chars in sets {
            let set = TwoByteChars::new(chars.iter().copied());
            for first in 0..=255u8 {
                for second in 0..=255u8 {
                    let expected = (0xC0..=0xDF).contains(&first)
                        && (0x80..=0xBF).contains(&second)
                        && chars.iter().any(|&(f, s)| {
                            f == first && (0x80..=0xBF).contains(&s) && s / 8 == second / 8
                        });
                    assert_eq!(
                        set.may_hold(first, second),
                        expected,
                        "{first:#04x} {second:#04x}"
                    );
                }
            }
        }
    }

    /// Every byte value is a member exactly when it was put in, under the byte test and under
    /// the nibble tables, for the sets the core uses and for every range.
    #[test]
    fn sets_hold_exactly_their_members() {
        let others = [b' ', b'?', 0xEF, b'\n', b'c', b'C', 0x0C, b'/'];
        for lowest in (0..=255u8).step_by(7) {
            for highest in (lowest..=255).step_by(11) {
                let mut nibbles: Vec<u8> =
                    (lowest..=highest).chain(others).map(|b| b >> 4).collect();
                nibbles.sort_unstable();
                nibbles.dedup();
                if nibbles.len() > 8 {
                    continue;
                }
                let set = ByteSet::new(lowest, highest, &others);
                for b in 0..=255u8 {
                    let member = (lowest..=highest).contains(&b) || others.contains(&b);
                    assert_eq!(set.contains(b), member, "{b:#04x}");
                    let (l, h) = (usize::from(b & 0x0F), usize::from(b >> 4));
                    let [low, high] = &set.vector;
                    assert_eq!(low[l] & high[h] != 0, member, "{b:#04x}");
                    assert_eq!(low[16 + l] & high[16 + h] != 0, member, "{b:#04x}");
                }
            }
        }
    }

    /// The vector test of a span gives every byte's membership, for every span.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn spans_hold_exactly_their_members() {
        use std::arch::x86_64::{__m256i, _mm256_loadu_si256};

        use avx2::Members;

        if !has_avx2() {
            return;
        }
        let bytes: Vec<u8> = (0..=255).collect();
        for lowest in 0..=255u8 {
            // The sets a byte set can be: at most eight high nibbles.
            for highest in lowest..=(lowest | 0x0F).saturating_add(0x70) {
                let set = ByteSet::new(lowest, highest, &[]);
                assert_eq!(set.span, Some((lowest, highest)));
                for chunk in bytes.chunks(32) {
                    // SAFETY: the CPU has AVX2, checked above; each chunk is 32 bytes.
                    let found = unsafe {
                        let v: __m256i = _mm256_loadu_si256(chunk.as_ptr().cast());
                        let mask = avx2::Span::of(lowest, highest).members(v);
                        std::arch::x86_64::_mm256_movemask_epi8(mask) as u32
                    };
                    for (k, &b) in chunk.iter().enumerate() {
                        let member = (lowest..=highest).contains(&b);
                        assert_eq!(
                            found >> k & 1 == 1,
                            member,
                            "{lowest:#x}..={highest:#x}: {b:#x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "eight high nibbles")]
    fn a_set_of_nine_high_nibbles_is_refused() {
        ByteSet::new(0, 0x8F, &[]);
    }

    /// The classes of byte pairs the tests use: products of nibbles, one of any second byte.
    const CLASSES: [(&[u8], &[u8]); 4] = [
        (b"\t\x0C\r", &ANY_BYTE),
        (b"cC", b"rR"),
        (b"cC", b"oO"),
        (&[0x80, 0x8F, 0xA0, 0xAF], b"\n"),
    ];

    /// Every pair of bytes is held exactly when some class holds its first byte and its
    /// second, under the byte test and under the nibble tables of each side.
    #[test]
    fn bigrams_hold_exactly_the_pairs_of_their_classes() {
        let sets: [&[(&[u8], &[u8])]; 3] = [&[], &CLASSES, &CLASSES[1..3]];
        for classes in sets {
            let set = Bigrams::new(classes);
            let nibbles = |side: usize, b: u8| {
                let (l, h) = (usize::from(b & 0x0F), usize::from(b >> 4));
                let (low, high) = (&set.vector[2 * side], &set.vector[2 * side + 1]);
                assert_eq!(low[l] & high[h], low[16 + l] & high[16 + h]);
                low[l] & high[h]
            };
            for first in 0..=255u8 {
                for second in 0..=255u8 {
                    let expected = classes.iter().any(|(firsts, seconds)| {
                        firsts.contains(&first) && seconds.contains(&second)
                    });
                    assert_eq!(
                        set.holds(first, second),
                        expected,
                        "{first:#04x} {second:#04x}"
                    );
                    let by_nibbles = nibbles(0, first) & nibbles(1, second) != 0;
                    assert_eq!(by_nibbles, expected, "{first:#04x} {second:#04x}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "a product of nibbles")]
    fn a_class_that_is_no_product_of_nibbles_is_refused() {
        // `c` and `R`: the nibbles would also make `b` and `S`.
        Bigrams::new(&[(b"cR", &ANY_BYTE)]);
    }

    #[test]
    #[should_panic(expected = "at most eight classes")]
    fn nine_classes_are_refused() {
        let class: (&[u8], &[u8]) = (b"a", b"b");
        Bigrams::new(&[class; 9]);
    }

    /// Sets of up to eight bytes and a range, drawn from a few values so that pairs are
    /// common, over texts long enough for several vector blocks.
    fn set() -> impl Strategy<Value = ByteSet> {
        let values = prop::sample::select(vec![0u8, b'\n', b' ', b'a', 0x7F, 0x80, 0xC3, 0xFF]);
        (proptest::collection::vec(values, 0..6), 0..5usize).prop_map(|(others, range)| match range
        {
            0 => ByteSet::new(0x80, 0xFF, &[]),
            1 => ByteSet::new(b'a', b'z', &others),
            // One value: a span of its own when there are no others.
            2 => others
                .first()
                .map_or(ByteSet::new(0x80, 0xBF, &[]), |&b| ByteSet::new(b, b, &[])),
            _ => ByteSet::new(1, 0, &others),
        })
    }

    /// Sets of two-byte characters drawn from the bytes the texts are made of, or none.
    fn two() -> impl Strategy<Value = Option<Two>> {
        let firsts = prop::sample::select(vec![0xC3u8, 0xD0, 0xD1, 0xDF, 0xC0]);
        let seconds = prop::sample::select(vec![0x80u8, 0x87, 0x88, 0x95, 0xB3, 0xBF]);
        prop::option::of(proptest::collection::vec((firsts, seconds), 0..5)).prop_map(|chars| {
            chars.map(|chars| Two {
                set: TwoByteChars::new(chars.iter().copied()),
                chars,
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn both_searches_find_the_pairs_of_the_definition(
            before in set(),
            at in set(),
            two in two(),
            bytes in proptest::collection::vec(
                prop::sample::select(vec![
                    0u8, b'\n', b' ', b'a', b'q', 0x7F, 0x80, 0x87, 0x88, 0x95, 0xB3, 0xBF, 0xC0,
                    0xC3, 0xD0, 0xD1, 0xDF, 0xFF,
                ]),
                0..400,
            ),
            from in 0..200usize,
            to in 0..450usize,
        ) {
            let range = from..to.max(from);
            let two_set = two.as_ref().map(|two| &two.set);
            let search = |range: Range<usize>| match two_set {
                Some(set) => pairs(&before, Then::ByteOrChar(&at, set), &bytes, range),
                None => pairs(&before, Then::Byte(&at), &bytes, range),
            };
            let expected = pairs_by_definition(&before, &at, two.as_ref(), &bytes, range.clone());
            let vector: Vec<usize> = search(range.clone()).collect();
            let portable: Vec<usize> = search(range).portable().collect();
            prop_assert_eq!(&vector, &expected);
            prop_assert_eq!(&portable, &expected);
        }

        #[test]
        fn both_searches_find_the_bigrams_of_the_definition(
            before in set(),
            classes in proptest::sample::subsequence(CLASSES.to_vec(), 0..=4),
            bytes in proptest::collection::vec(
                prop::sample::select(vec![
                    0u8, b'\n', b'\t', b'\r', b'c', b'C', b'r', b'o', b'O', b'b', b'S', 0x80,
                    0x8F, 0xA0, 0xAF, 0xB0, 0xFF,
                ]),
                0..400,
            ),
            from in 0..200usize,
            to in 0..450usize,
        ) {
            let range = from..to.max(from);
            let bigrams = Bigrams::new(&classes);
            let end = range.end.min(bytes.len());
            let start = range.start.min(end);
            // The byte after a position may lie past the range, not past the haystack.
            let expected: Vec<usize> = (start + 1..end)
                .filter(|&p| {
                    before.contains(bytes[p - 1])
                        && bytes.get(p + 1).is_some_and(|&after| {
                            classes.iter().any(|(firsts, seconds)| {
                                firsts.contains(&bytes[p]) && seconds.contains(&after)
                            })
                        })
                })
                .collect();
            let vector: Vec<usize> = pairs(&before, Then::Bigram(&bigrams), &bytes, range.clone()).collect();
            let portable: Vec<usize> =
                pairs(&before, Then::Bigram(&bigrams), &bytes, range).portable().collect();
            prop_assert_eq!(&vector, &expected);
            prop_assert_eq!(&portable, &expected);
        }
    }
}
