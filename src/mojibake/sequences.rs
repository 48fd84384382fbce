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

/// A garbled form of at most [`INLINE`] bytes, its length in the last byte, the rest zero.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ShortKey([u8; 24]);

impl ShortKey {
    #[inline]
    fn new(garbled: &[u8]) -> Option<ShortKey> {
        if garbled.len() > INLINE {
            return None;
        }
        let mut bytes = [0u8; 24];
        bytes[..garbled.len()].copy_from_slice(garbled);
        bytes[INLINE] = garbled.len() as u8;
        Some(ShortKey(bytes))
    }

    fn as_slice(&self) -> &[u8] {
        &self.0[..usize::from(self.0[INLINE])]
    }
}

impl std::hash::Hash for ShortKey {
    /// Three words, not 24 bytes: the hasher's cost per call is per write.
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let (words, _) = self.0.as_chunks::<8>();
        for word in words {
            state.write_u64(u64::from_ne_bytes(*word));
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
            Some(key) => self
                .short
                .entry(key)
                .and_modify(|known| known.count += seq.count)
                .or_insert(seq),
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
