//! Counts of garbled forms: how often each sequence was seen, and where first.
//!
//! `scan` counts every repaired character by its garbled bytes, so the table is updated once
//! per character, millions of times on a garbled dump. Almost every garbled form is short
//! (`Ã©` is 4 bytes, `â€™` 8, `Ã¢â‚¬â„¢`, the same character garbled twice, 15), so the
//! key is held inline in three machine words, hashed and compared as words: no allocation
//! and no byte-by-byte comparison per hit. Longer forms (three layers and more) go to a
//! second map keyed by their bytes.

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

/// Garbled forms up to this many bytes are held inline.
const INLINE: usize = 23;

/// A garbled form of at most [`INLINE`] bytes in three words, in memory in the order of its
/// bytes, its length in the last byte, the rest zero.
///
/// The words are loaded from the form and compared as words: a key copied in byte by byte
/// and then read as words would make every lookup wait for the copy to reach memory.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ShortKey([u64; 3]);

impl ShortKey {
    #[inline]
    fn new(garbled: &[u8]) -> Option<ShortKey> {
        if garbled.len() > INLINE {
            return None;
        }
        let (first, rest) = garbled.split_at(garbled.len().min(8));
        let (second, third) = rest.split_at(rest.len().min(8));
        let length = (garbled.len() as u64) << 56;
        Some(ShortKey([
            word(first).to_le(),
            word(second).to_le(),
            (word(third) | length).to_le(),
        ]))
    }

    fn len(&self) -> usize {
        (u64::from_le(self.0[2]) >> 56) as usize
    }

    fn as_slice(&self) -> &[u8] {
        // SAFETY: three `u64`s are 24 initialised bytes with no padding, any bit pattern is a
        // valid `u8`, `u8` needs no alignment, and the slice borrows `self` for its lifetime.
        let bytes: &[u8; 24] = unsafe { &*self.0.as_ptr().cast::<[u8; 24]>() };
        &bytes[..self.len()]
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

impl std::hash::Hash for ShortKey {
    /// Three words, not 24 bytes: the hasher's cost per call is per write.
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for word in self.0 {
            state.write_u64(word);
        }
    }
}

impl std::fmt::Debug for ShortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", bstr::BStr::new(self.as_slice()))
    }
}

/// How often each garbled form was seen.
#[derive(Clone, Debug, Default)]
pub struct SequenceTable {
    short: HashMap<ShortKey, SequenceCount>,
    long: HashMap<Vec<u8>, SequenceCount>,
}

impl SequenceTable {
    /// Counts one occurrence of `garbled` (its first one is `seq`, with a count of one).
    #[inline]
    pub fn record(&mut self, garbled: &[u8], seq: SequenceCount) {
        match ShortKey::new(garbled) {
            // A lookup, then an insert only for a form not seen before (rare: a text has a
            // few hundred forms and millions of hits), keeps the hit's path short enough to be
            // inlined here, which `entry` is not always.
            Some(key) => match self.short.get_mut(&key) {
                Some(known) => {
                    known.count += seq.count;
                    known
                }
                None => self.short.entry(key).or_insert(seq),
            },
            None => match self.long.get_mut(garbled) {
                Some(known) => {
                    known.count += seq.count;
                    known
                }
                None => self.long.entry(garbled.to_vec()).or_insert(seq),
            },
        };
    }

    /// Adds `other` (counts of a later piece of the same input, or of another input).
    pub fn merge(&mut self, other: SequenceTable) {
        for (key, seq) in other.short {
            self.short
                .entry(key)
                .and_modify(|known| known.absorb(&seq))
                .or_insert(seq);
        }
        for (garbled, seq) in other.long {
            self.long
                .entry(garbled)
                .and_modify(|known| known.absorb(&seq))
                .or_insert(seq);
        }
    }

    /// Keeps only the forms `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&SequenceCount) -> bool) {
        self.short.retain(|_, seq| keep(seq));
        self.long.retain(|_, seq| keep(seq));
    }

    /// How many distinct garbled forms were seen.
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The count of one garbled form.
    pub fn get(&self, garbled: &[u8]) -> Option<&SequenceCount> {
        match ShortKey::new(garbled) {
            Some(key) => self.short.get(&key),
            None => self.long.get(garbled),
        }
    }

    /// Every garbled form and its count, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &SequenceCount)> {
        let short = self.short.iter().map(|(key, seq)| (key.as_slice(), seq));
        short.chain(
            self.long
                .iter()
                .map(|(garbled, seq)| (garbled.as_slice(), seq)),
        )
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
    fn short_and_long_forms_are_counted_alike() {
        let long = "Ã¢â‚¬â„¢ but garbled once more".as_bytes();
        assert!(long.len() > INLINE);
        let mut table = SequenceTable::default();
        for garbled in [&b"\xc3\x83\xc2\xa9"[..], long, &[0xC3; INLINE][..]] {
            table.record(garbled, seq(1, 5));
            table.record(garbled, seq(1, 9));
            assert_eq!(table.get(garbled).map(|s| s.count), Some(2));
            assert_eq!(table.get(garbled).map(|s| s.first_offset), Some(5));
        }
        assert_eq!(table.len(), 3);
        assert_eq!(table.get(b""), None);
    }

    proptest::proptest! {
        /// A short key holds its form's bytes exactly, whatever their length, and two forms
        /// share a key only when they are equal.
        #[test]
        fn short_keys_hold_their_bytes(
            a in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..=INLINE),
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..=INLINE),
        ) {
            let (key_a, key_b) = (ShortKey::new(&a).unwrap(), ShortKey::new(&b).unwrap());
            proptest::prop_assert_eq!(key_a.as_slice(), &a[..]);
            proptest::prop_assert_eq!(key_a == key_b, a == b);
            let prefix = &a[..a.len() / 2];
            let key_prefix = ShortKey::new(prefix).unwrap();
            proptest::prop_assert_eq!(key_prefix.as_slice(), prefix);
        }
    }

    #[test]
    fn keys_differ_by_length_even_when_bytes_are_zero() {
        let mut table = SequenceTable::default();
        table.record(b"\xc3", seq(1, 0));
        table.record(b"\xc3\x00", seq(1, 1));
        assert_eq!(table.len(), 2);
        let top = table.top(10);
        assert_eq!(top[0].0, b"\xc3");
        assert_eq!(top[1].0, b"\xc3\x00");
    }

    #[test]
    fn merging_adds_counts_and_keeps_the_first_offset() {
        let mut a = SequenceTable::default();
        let mut b = SequenceTable::default();
        a.record(b"ab", seq(3, 100));
        b.record(b"ab", seq(2, 40));
        b.record(b"cd", seq(7, 1));
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
