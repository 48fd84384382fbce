//! Counts of garbled forms: how often each sequence was seen, and where first.
//!
//! `scan` counts every repaired character by its garbled bytes, so the table is updated once
//! per character, millions of times on a garbled dump. Almost every garbled form is short:
//! `Ã©` is 4 bytes and `â€™` 8 (one word), `Ã¢â‚¬â„¢`, the same character garbled twice, 15
//! (three words). So the key is held inline in one machine word, or in three, hashed and
//! compared as words: no allocation and no byte-by-byte comparison per hit, and for the
//! commonest forms one word to hash and compare, not three. Longer forms (three layers and
//! more) go to a third map keyed by their bytes.

use std::hash::Hash;

use rustc_hash::FxHashMap as HashMap;

use super::codepage::ReadingMask;

/// One garbled form's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceCount {
    pub original: char,
    pub mask: ReadingMask,
    pub layers: u8,
    pub count: u64,
    /// Byte offset of the first occurrence, counted from the start of the input.
    pub first_offset: u64,
}

impl SequenceCount {
    /// Takes in `other`, a count of the same garbled form.
    fn absorb(&mut self, other: &SequenceCount) {
        self.count += other.count;
        self.first_offset = self.first_offset.min(other.first_offset);
    }
}

/// A garbled form of at most `8 * WORDS` bytes in `WORDS` words, in memory in the order of
/// its bytes, the rest zero, and its length in the last byte when it leaves that byte free.
/// A form that fills every byte is held only when its last byte is at least `8 * WORDS`:
/// read as a length, that byte says "full", so no two forms share a key.
///
/// The words are loaded from the form and compared as words: a key copied in byte by byte
/// and then read as words would make every lookup wait for the copy to reach memory.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ShortKey<const WORDS: usize>([u64; WORDS]);

impl<const WORDS: usize> ShortKey<WORDS> {
    const ROOM: usize = 8 * WORDS;

    #[inline]
    fn new(garbled: &[u8]) -> Option<Self> {
        let n = garbled.len();
        let full = n == Self::ROOM && usize::from(garbled[n - 1]) >= Self::ROOM;
        if n >= Self::ROOM && !full {
            return None;
        }
        let mut words = [0u64; WORDS];
        for (i, slot) in words.iter_mut().enumerate() {
            let rest = garbled.get(8 * i..).unwrap_or_default();
            *slot = word(&rest[..rest.len().min(8)]);
        }
        if !full {
            words[WORDS - 1] |= (n as u64) << 56;
        }
        Some(ShortKey(words.map(u64::to_le)))
    }

    fn len(&self) -> usize {
        let last = (u64::from_le(self.0[WORDS - 1]) >> 56) as usize;
        last.min(Self::ROOM)
    }

    fn as_slice(&self) -> &[u8] {
        // SAFETY: `WORDS` `u64`s are `8 * WORDS` initialised bytes with no padding, any bit
        // pattern is a valid `u8`, `u8` needs no alignment, `len` is at most `8 * WORDS`, and
        // the slice borrows `self` for its lifetime.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.len()) }
    }
}

/// The bytes of `bytes` (at most 8) as a little-endian word, the rest zero: two overlapping
/// loads, or one, rather than a copy byte by byte.
#[inline]
fn word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let two = |at: usize| {
        let chunk = bytes.get(at..).and_then(<[u8]>::first_chunk::<2>);
        chunk.map_or(0, |c| u64::from(u16::from_le_bytes(*c)))
    };
    let four = |at: usize| {
        let chunk = bytes.get(at..).and_then(<[u8]>::first_chunk::<4>);
        chunk.map_or(0, |c| u64::from(u32::from_le_bytes(*c)))
    };
    match n {
        8.. => bytes
            .first_chunk::<8>()
            .map_or(0, |c| u64::from_le_bytes(*c)),
        4..=7 => four(0) | four(n - 4) << (8 * (n - 4)),
        2..=3 => two(0) | two(n - 2) << (8 * (n - 2)),
        1 => u64::from(bytes[0]),
        0 => 0,
    }
}

impl<const WORDS: usize> std::hash::Hash for ShortKey<WORDS> {
    /// Words, not bytes: the hasher's cost per call is per write.
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for word in self.0 {
            state.write_u64(word);
        }
    }
}

impl<const WORDS: usize> std::fmt::Debug for ShortKey<WORDS> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", bstr::BStr::new(self.as_slice()))
    }
}

/// How often each garbled form was seen.
#[derive(Clone, Debug, Default)]
pub struct SequenceTable {
    /// Forms of at most one word: every form of one layer but for a few of four-byte
    /// characters.
    one_word: HashMap<ShortKey<1>, SequenceCount>,
    /// Forms of at most three words: most forms of two layers.
    three_words: HashMap<ShortKey<3>, SequenceCount>,
    long: HashMap<Vec<u8>, SequenceCount>,
}

/// Counts one more occurrence of `key` in `map`; `first` makes its count when it is new.
#[inline(always)]
fn count_in<K: Hash + Eq>(
    map: &mut HashMap<K, SequenceCount>,
    key: K,
    first: impl FnOnce() -> SequenceCount,
) {
    // A lookup, then an insert only for a form not seen before (rare: a text has a few
    // hundred forms and millions of hits), keeps the hit's path short enough to be inlined.
    match map.get_mut(&key) {
        Some(known) => known.count += 1,
        None => insert_new(map, key, first()),
    }
}

/// The first occurrence of a form, out of the way of the hits' path.
#[cold]
#[inline(never)]
fn insert_new<K: Hash + Eq>(map: &mut HashMap<K, SequenceCount>, key: K, seq: SequenceCount) {
    map.insert(key, seq);
}

/// Adds the counts of `theirs` to those of `mine`, form by form.
fn absorb_all<K: Hash + Eq>(
    mine: &mut HashMap<K, SequenceCount>,
    theirs: HashMap<K, SequenceCount>,
) {
    for (key, seq) in theirs {
        mine.entry(key)
            .and_modify(|known| known.absorb(&seq))
            .or_insert(seq);
    }
}

impl SequenceTable {
    /// Counts one occurrence of `garbled`; `first` makes its count (of one) when it is the
    /// form's first occurrence, and only then.
    #[inline(always)]
    pub fn record(&mut self, garbled: &[u8], first: impl FnOnce() -> SequenceCount) {
        if let Some(key) = ShortKey::<1>::new(garbled) {
            return count_in(&mut self.one_word, key, first);
        }
        if let Some(key) = ShortKey::<3>::new(garbled) {
            return count_in(&mut self.three_words, key, first);
        }
        match self.long.get_mut(garbled) {
            Some(known) => known.count += 1,
            None => insert_new(&mut self.long, garbled.to_vec(), first()),
        }
    }

    /// Adds `other` (counts of a later piece of the same input, or of another input).
    pub fn merge(&mut self, other: SequenceTable) {
        absorb_all(&mut self.one_word, other.one_word);
        absorb_all(&mut self.three_words, other.three_words);
        absorb_all(&mut self.long, other.long);
    }

    /// Keeps only the forms `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&SequenceCount) -> bool) {
        self.one_word.retain(|_, seq| keep(seq));
        self.three_words.retain(|_, seq| keep(seq));
        self.long.retain(|_, seq| keep(seq));
    }

    /// How many distinct garbled forms were seen.
    pub fn len(&self) -> usize {
        self.one_word.len() + self.three_words.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The count of one garbled form.
    pub fn get(&self, garbled: &[u8]) -> Option<&SequenceCount> {
        if let Some(key) = ShortKey::<1>::new(garbled) {
            return self.one_word.get(&key);
        }
        if let Some(key) = ShortKey::<3>::new(garbled) {
            return self.three_words.get(&key);
        }
        self.long.get(garbled)
    }

    /// Every garbled form and its count, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &SequenceCount)> {
        let one = self.one_word.iter().map(|(key, seq)| (key.as_slice(), seq));
        let three = (self.three_words.iter()).map(|(key, seq)| (key.as_slice(), seq));
        let long = self.long.iter().map(|(key, seq)| (key.as_slice(), seq));
        one.chain(three).chain(long)
    }

    /// The `limit` most frequent forms, most frequent first, ties by garbled bytes so that
    /// reports are stable.
    pub fn top(&self, limit: usize) -> Vec<(&[u8], &SequenceCount)> {
        let mut all: Vec<(&[u8], &SequenceCount)> = self.iter().collect();
        all.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
        all.truncate(limit);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(count: u64, first_offset: u64) -> SequenceCount {
        SequenceCount {
            original: 'é',
            mask: ReadingMask(1),
            layers: 1,
            count,
            first_offset,
        }
    }

    #[test]
    fn forms_of_every_size_are_counted_alike() {
        let mut full_three = [0xC3; 24];
        full_three[23] = 7;
        let forms: [&[u8]; 8] = [
            b"\xc3\x83\xc2\xa9",                         // `Ã©`: one word
            "â€™".as_bytes(),                            // a full word, its last byte high
            b"\xc3\xc3\xc3\xc3\xc3\xc3\xc3\x07",         // a full word, its last byte a length
            "Ã¢â‚¬â„¢".as_bytes(),                       // three words
            &[0xC3; 24],                                 // three full words, the last byte high
            &full_three,                                 // three full words, the last byte low
            "Ã¢â‚¬â„¢ but garbled once more".as_bytes(), // longer
            b"",
        ];
        let mut table = SequenceTable::default();
        for garbled in forms {
            table.record(garbled, || seq(1, 5));
            table.record(garbled, || seq(1, 9));
            assert_eq!(table.get(garbled).map(|s| s.count), Some(2));
            assert_eq!(table.get(garbled).map(|s| s.first_offset), Some(5));
        }
        assert_eq!(table.len(), forms.len());
        let mut listed: Vec<&[u8]> = table.iter().map(|(garbled, _)| garbled).collect();
        let mut expected = forms.to_vec();
        listed.sort();
        expected.sort();
        assert_eq!(listed, expected);
    }

    /// Bytes as garbled forms are made of, and the small values a length is.
    fn form_byte() -> impl proptest::strategy::Strategy<Value = u8> {
        proptest::prop_oneof![0u8..=32, proptest::prelude::any::<u8>()]
    }

    /// The key of `WORDS` words: it holds its form's bytes exactly, it is made exactly for
    /// the forms its definition admits, and two forms share a key only when they are equal.
    fn check_keys<const WORDS: usize>(a: &[u8], b: &[u8]) -> Result<(), TestCaseError> {
        let room = 8 * WORDS;
        let admits = |form: &[u8]| {
            form.len() < room || (form.len() == room && usize::from(form[room - 1]) >= room)
        };
        let (key_a, key_b) = (ShortKey::<WORDS>::new(a), ShortKey::<WORDS>::new(b));
        prop_assert_eq!(key_a.is_some(), admits(a));
        prop_assert_eq!(key_b.is_some(), admits(b));
        if let (Some(key_a), Some(key_b)) = (key_a, key_b) {
            prop_assert_eq!(key_a.as_slice(), a);
            prop_assert_eq!(key_b.as_slice(), b);
            prop_assert_eq!(key_a == key_b, a == b);
        }
        Ok(())
    }

    use proptest::prelude::{TestCaseError, prop_assert, prop_assert_eq};

    proptest::proptest! {
        #[test]
        fn short_keys_hold_their_bytes(
            a in proptest::collection::vec(form_byte(), 0..=26),
            b in proptest::collection::vec(form_byte(), 0..=26),
            cut in 0usize..=26,
        ) {
            // A prefix of `a` as `b` too: forms that share bytes and differ in length.
            let prefix = &a[..cut.min(a.len())];
            for b in [&b[..], prefix] {
                check_keys::<1>(&a, b)?;
                check_keys::<3>(&a, b)?;
            }
        }

        /// The table counts as a map of the forms' bytes does, whichever tier holds a form.
        #[test]
        fn the_table_counts_as_a_map_of_bytes(
            forms in proptest::collection::vec(
                proptest::collection::vec(proptest::prop_oneof![0u8..=8, 22u8..=26, 0xC3u8..=0xC4], 0..=26),
                1..12,
            ),
            picks in proptest::collection::vec(0usize..12, 0..200),
        ) {
            let mut table = SequenceTable::default();
            let mut expected: std::collections::BTreeMap<&[u8], (u64, u64)> = Default::default();
            for (at, &pick) in picks.iter().enumerate() {
                let garbled = &forms[pick % forms.len()][..];
                table.record(garbled, || seq(1, at as u64));
                let entry = expected.entry(garbled).or_insert((0, at as u64));
                entry.0 += 1;
            }
            prop_assert_eq!(table.len(), expected.len());
            for (garbled, count) in table.iter() {
                prop_assert_eq!(Some(&(count.count, count.first_offset)), expected.get(garbled));
                prop_assert!(table.get(garbled) == Some(count));
            }
        }
    }

    #[test]
    fn keys_differ_by_length_even_when_bytes_are_zero() {
        let mut table = SequenceTable::default();
        table.record(b"\xc3", || seq(1, 0));
        table.record(b"\xc3\x00", || seq(1, 1));
        assert_eq!(table.len(), 2);
        let top = table.top(10);
        assert_eq!(top[0].0, b"\xc3");
        assert_eq!(top[1].0, b"\xc3\x00");
    }

    #[test]
    fn merging_adds_counts_and_keeps_the_first_offset() {
        let mut a = SequenceTable::default();
        let mut b = SequenceTable::default();
        let times = |table: &mut SequenceTable, garbled: &[u8], n: usize, at: u64| {
            for _ in 0..n {
                table.record(garbled, || seq(1, at));
            }
        };
        times(&mut a, b"ab", 3, 100);
        times(&mut b, b"ab", 2, 40);
        times(&mut b, b"cd", 7, 1);
        a.merge(b);
        let top = a.top(usize::MAX);
        assert_eq!(top.len(), 2);
        assert_eq!((top[0].0, top[0].1.count), (&b"cd"[..], 7));
        assert_eq!(
            (top[1].0, top[1].1.count, top[1].1.first_offset),
            (&b"ab"[..], 5, 40)
        );
    }
}
