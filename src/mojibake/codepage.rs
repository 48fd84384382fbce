//! Single-byte code pages as data, and the reverse index the matcher reads them through.
//!
//! Double encoding happens when UTF-8 bytes are read through a single-byte code page and the
//! resulting characters are written back as UTF-8. Undoing it means mapping each character of
//! the garbled text back to the byte the code page gave it for. A [`CodePage`] is nothing but
//! that 128-entry table for bytes `0x80..=0xFF` (bytes below `0x80` are ASCII in every page we
//! handle, and ASCII is never part of a double-encoded sequence). Adding a code page is adding a
//! table here, not writing new matching code: [`Readings`] turns any set of tables into the
//! character → byte index that the matcher uses.

use std::fmt;

use super::classes::MarkerTraits;
pub use super::codepage_tables::{
    CP437, CP850, ISO_8859_2, ISO_8859_15, KOI8_R, MAC_ROMAN, WINDOWS_1250, WINDOWS_1251,
    WINDOWS_1253, WINDOWS_1254, WINDOWS_1257,
};

/// One single-byte code page: what character each byte `0x80..=0xFF` decodes to.
pub struct CodePage {
    /// The name used in reports and on the command line (`latin1`, `cp1252`).
    pub name: &'static str,
    /// A longer, human-readable description.
    pub description: &'static str,
    /// `high[b - 0x80]` is the character byte `b` decodes to, or `None` where the page leaves
    /// the byte undefined (such a byte can never be recovered from the garbled text).
    pub high: [Option<char>; 128],
}

impl fmt::Debug for CodePage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodePage")
            .field("name", &self.name)
            .finish()
    }
}

impl CodePage {
    /// Whether this is one of the Western pair ([`WESTERN`]), the pages one sequence may mix.
    pub fn is_western(&self) -> bool {
        WESTERN.iter().any(|western| std::ptr::eq(*western, self))
    }

    /// The character `byte` decodes to; ASCII decodes to itself.
    pub fn decode(&self, byte: u8) -> Option<char> {
        if byte < 0x80 {
            Some(char::from(byte))
        } else {
            self.high[usize::from(byte - 0x80)]
        }
    }
}

/// What a program that reads `bytes` through `page_for` (a code page chosen per byte, so that
/// mixed readings can be made too) and writes the result back as UTF-8 produces: one layer of
/// double encoding. `None` when some byte is undefined in the page chosen for it.
///
/// ```
/// use undouble::mojibake::codepage::{garble, WINDOWS_1252};
/// assert_eq!(garble("don’t".as_bytes(), |_| &WINDOWS_1252).as_deref(), Some("donâ€™t"));
/// ```
pub fn garble<'p>(bytes: &[u8], mut page_for: impl FnMut(u8) -> &'p CodePage) -> Option<String> {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        out.push(page_for(byte).decode(byte)?);
    }
    Some(out)
}

/// Bytes `0x80..=0xFF` decoding to U+0080..U+00FF: the ISO-8859-1 table, and the start of every
/// table that agrees with it on `0xA0..=0xFF`.
/// A table of code points (0 where the page leaves the byte undefined) as characters: how the
/// generated tables ([`super::codepage_tables`]) are written.
pub(crate) const fn table(code_points: [u32; 128]) -> [Option<char>; 128] {
    let mut high = [None; 128];
    let mut i = 0;
    while i < 128 {
        if code_points[i] != 0 {
            high[i] = char::from_u32(code_points[i]);
        }
        i += 1;
    }
    high
}

const fn latin1_high() -> [Option<char>; 128] {
    let mut high = [None; 128];
    let mut i = 0;
    while i < 128 {
        high[i] = char::from_u32(0x80 + i as u32);
        i += 1;
    }
    high
}

/// Windows-1252's characters for bytes `0x80..=0x9F`. The five bytes Microsoft left undefined
/// (`81 8D 8F 90 9D`) decode to the C1 control of the same number, as MySQL/MariaDB's `latin1`
/// and the WHATWG Encoding Standard both do; a program that dropped them instead has lost the
/// byte, and there is nothing to repair.
const WINDOWS_1252_80_9F: [u32; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, // 80..87
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F, // 88..8F
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, // 90..97
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178, // 98..9F
];

const fn windows_1252_high() -> [Option<char>; 128] {
    let mut high = latin1_high();
    let mut i = 0;
    while i < 32 {
        high[i] = char::from_u32(WINDOWS_1252_80_9F[i]);
        i += 1;
    }
    high
}

/// ISO-8859-1: every byte is the code point of the same number (C1 controls for `0x80..=0x9F`).
pub static LATIN1: CodePage = CodePage {
    name: "latin1",
    description: "ISO-8859-1 (bytes 0x80-0x9F read as C1 controls)",
    high: latin1_high(),
};

/// Windows-1252, as MySQL/MariaDB's `latin1` and browsers read it.
pub static WINDOWS_1252: CodePage = CodePage {
    name: "cp1252",
    description: "Windows-1252 (MySQL/MariaDB latin1; undefined bytes kept as C1 controls)",
    high: windows_1252_high(),
};

/// The two pages of MySQL's `latin1`, the default readings: real dumps mix them.
pub static WESTERN: [&CodePage; 2] = [&LATIN1, &WINDOWS_1252];

/// Every code page this build knows, in the order a match is attributed to them: the Western
/// pair, then the pages of other scripts and systems (generated tables).
pub static ALL: [&CodePage; 13] = [
    &LATIN1,
    &WINDOWS_1252,
    &WINDOWS_1250,
    &WINDOWS_1251,
    &WINDOWS_1253,
    &WINDOWS_1254,
    &WINDOWS_1257,
    &ISO_8859_2,
    &ISO_8859_15,
    &MAC_ROMAN,
    &CP437,
    &CP850,
    &KOI8_R,
];

/// The names [`by_name`] takes besides each page's own, as the WHATWG labels, MySQL and iconv
/// spell them.
const ALIASES: [(&str, &CodePage); 28] = [
    ("iso-8859-1", &LATIN1),
    ("iso8859-1", &LATIN1),
    ("l1", &LATIN1),
    ("windows-1252", &WINDOWS_1252),
    ("win1252", &WINDOWS_1252),
    ("windows-1250", &WINDOWS_1250),
    ("windows-1251", &WINDOWS_1251),
    ("windows-1253", &WINDOWS_1253),
    ("windows-1254", &WINDOWS_1254),
    ("windows-1257", &WINDOWS_1257),
    ("iso-8859-2", &ISO_8859_2),
    ("iso8859-2", &ISO_8859_2),
    ("l2", &ISO_8859_2),
    ("iso-8859-15", &ISO_8859_15),
    ("iso8859-15", &ISO_8859_15),
    ("latin-9", &ISO_8859_15),
    ("macintosh", &MAC_ROMAN),
    ("mac-roman", &MAC_ROMAN),
    ("mac", &MAC_ROMAN),
    ("ibm437", &CP437),
    ("437", &CP437),
    ("ibm850", &CP850),
    ("850", &CP850),
    ("koi8r", &KOI8_R),
    ("koi8", &KOI8_R),
    ("greek", &WINDOWS_1253),
    ("cyrillic", &WINDOWS_1251),
    ("turkish", &WINDOWS_1254),
];

/// Looks a code page up by name (`latin1`, `cp1252`, `windows-1251`, `macroman`, ...), in any
/// case.
pub fn by_name(name: &str) -> Option<&'static CodePage> {
    let name = name.to_ascii_lowercase();
    ALL.iter()
        .copied()
        .find(|page| page.name == name)
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(alias, _)| *alias == name)
                .map(|&(_, page)| page)
        })
}

/// The names of every page, for messages that list them.
pub fn names() -> String {
    let names: Vec<&str> = ALL.iter().map(|page| page.name).collect();
    names.join(", ")
}

/// A set of code pages, as a bit mask over the order they were given to [`Readings::new`].
///
/// A garbled character that decodes the same way under several pages carries all their bits;
/// a sequence's reading is the intersection of its characters' masks. ISO-8859-1 and
/// Windows-1252 are one family besides: a sequence may mix them (some bytes went through one
/// decoder, some through the other, as MySQL's `latin1` and the programs around it do), and
/// their characters carry [`ReadingMask::WESTERN_FAMILY`] too, so that such a sequence keeps
/// that bit alone. No other pair of pages mixes: a sequence whose intersection is empty is no
/// sequence at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ReadingMask(pub u16);

impl ReadingMask {
    /// The bit of the pages that may mix in one sequence, above every page's own.
    pub const WESTERN_FAMILY: ReadingMask = ReadingMask(1 << MAX_PAGES);

    /// The reading of a sequence made of characters with masks `self` and `other`.
    pub fn and(self, other: ReadingMask) -> ReadingMask {
        ReadingMask(self.0 & other.0)
    }

    /// True when the characters agree on no single code page (they mix the Western pair).
    pub fn is_mixed(self) -> bool {
        self.pages() == 0
    }

    /// True when the characters agree on no page and do not mix the Western pair either: no
    /// reading explains them together.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The bits of the pages alone, without the family's.
    fn pages(self) -> u16 {
        self.0 & !Self::WESTERN_FAMILY.0
    }
}

/// How many pages one [`Readings`] holds at most: the bits of a [`ReadingMask`] but the
/// family's.
pub const MAX_PAGES: usize = 15;

/// Where a garbled character came from: the byte it stood for, and under which pages; and
/// what the character itself can tell the plausibility rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteOrigin {
    pub byte: u8,
    pub mask: ReadingMask,
    pub traits: MarkerTraits,
}

impl ByteOrigin {
    /// Takes in `later`, the same character given by a later page: for the same byte, that
    /// page agrees and joins the mask; for another byte, the earlier page keeps the character.
    fn given_again(&mut self, later: ByteOrigin) {
        if later.byte == self.byte {
            self.mask.0 |= later.mask.0;
        }
    }
}

/// The reverse index of a set of code pages: for each character that some page produces for a
/// byte `>= 0x80`, that byte and the pages that agree on it.
///
/// Characters below U+0100 (the whole of ISO-8859-1, and most of every Western page) sit in a
/// direct table; the rest in a short sorted list searched by bisection. The matcher, which
/// meets these characters as UTF-8 bytes, reads them through [`Readings::origin_at`] instead:
/// it maps the bytes themselves, so a character is neither decoded nor searched for.
#[derive(Clone, Debug)]
pub struct Readings {
    pages: Vec<&'static CodePage>,
    /// The bits of the pages indexed: all of them, unless the set was made by
    /// [`Readings::among`] to name more pages than it reads.
    active: u16,
    low: [Option<ByteOrigin>; 256],
    high: Vec<(char, ByteOrigin)>,
    by_utf8: Utf8Index,
    cut_unsafe: [bool; 256],
}

/// Reasons a set of code pages cannot be indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadingsError {
    Empty,
    TooMany(usize),
}

impl fmt::Display for ReadingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadingsError::Empty => write!(f, "at least one code page is needed"),
            ReadingsError::TooMany(n) => {
                write!(f, "at most {MAX_PAGES} code pages at once, {n} given")
            }
        }
    }
}

impl std::error::Error for ReadingsError {}

impl Readings {
    /// Indexes `pages`. Where two pages map the same character to different bytes, the first
    /// page given wins: its garbled text is read back, the other page's with that character
    /// is not (Windows-1251 puts `€` at `0x88`, Windows-1252 at `0x80`).
    pub fn new(pages: &[&'static CodePage]) -> Result<Readings, ReadingsError> {
        Readings::among(pages, |_| true)
    }

    /// Indexes the pages of `pages` that `active` takes (by their position), with masks over
    /// all of `pages`: readings that each read one page or a few, and that name their masks
    /// the same way, so that what they find can be counted and reported together.
    pub fn among(
        pages: &[&'static CodePage],
        active: impl Fn(usize) -> bool,
    ) -> Result<Readings, ReadingsError> {
        if pages.len() > MAX_PAGES {
            return Err(ReadingsError::TooMany(pages.len()));
        }
        let active = (0..pages.len())
            .filter(|&bit| active(bit))
            .fold(0u16, |bits, bit| bits | 1 << bit);
        if active == 0 {
            return Err(ReadingsError::Empty);
        }
        // Every character a page read gives for a byte, in page order and then byte order:
        // the first to give a character keeps it, and the later pages that give it for the
        // same byte add their masks.
        let mut low: [Option<ByteOrigin>; 256] = [None; 256];
        let mut given_high: Vec<(char, ByteOrigin)> = Vec::new();
        for (bit, page) in pages.iter().enumerate() {
            if active & 1 << bit == 0 {
                continue;
            }
            let mask = mask_of(bit, page);
            for byte in 0x80..=0xFFu8 {
                let Some(ch) = page.decode(byte) else {
                    continue;
                };
                let origin = ByteOrigin {
                    byte,
                    mask,
                    traits: MarkerTraits::of(ch),
                };
                match u32::from(ch) {
                    cp @ 0..0x100 => match &mut low[cp as usize] {
                        Some(known) => known.given_again(origin),
                        empty => *empty = Some(origin),
                    },
                    _ => given_high.push((ch, origin)),
                }
            }
        }
        // Stable, so that each character's entries stay in page and byte order: grouped by
        // character at once, where looking each up among those before grew with their number.
        given_high.sort_by_key(|(ch, _)| *ch);
        let mut high: Vec<(char, ByteOrigin)> = Vec::with_capacity(given_high.len());
        for (ch, origin) in given_high {
            match high.last_mut() {
                Some((last, known)) if *last == ch => known.given_again(origin),
                _ => high.push((ch, origin)),
            }
        }

        let mut readings = Readings {
            pages: pages.to_vec(),
            active,
            low,
            high,
            by_utf8: Utf8Index::new(std::iter::empty()),
            cut_unsafe: [false; 256],
        };
        for byte in 0x80..=0xBFu8 {
            readings.cut_unsafe[usize::from(byte)] = true;
        }
        readings.by_utf8 = Utf8Index::new(readings.entries());
        // Every page named, read or not: readings made by `among` for the same set cut their
        // buffers alike, so any of them may scan the pieces.
        let mut utf8 = [0u8; 4];
        for page in pages {
            for byte in 0x80..=0xBFu8 {
                if let Some(ch) = page.decode(byte) {
                    let first = ch.encode_utf8(&mut utf8).as_bytes()[0];
                    readings.cut_unsafe[usize::from(first)] = true;
                }
            }
        }
        Ok(readings)
    }

    /// ISO-8859-1 and Windows-1252 together: the default, since real dumps mix both.
    pub fn western() -> Readings {
        // Two shipped tables: within every limit `new` checks.
        match Readings::new(&WESTERN) {
            Ok(readings) => readings,
            Err(_) => unreachable!("the shipped tables are valid"),
        }
    }

    /// Every page this build knows ([`ALL`]), the Western pair first: the set the default
    /// scanner chooses each buffer's reading among ([`Scanner::choosing`](super::Scanner::choosing)).
    pub fn all() -> Readings {
        // The shipped tables: within every limit `new` checks.
        match Readings::new(&ALL) {
            Ok(readings) => readings,
            Err(_) => unreachable!("the shipped tables are valid"),
        }
    }

    /// The mask of the page at `index` in [`Readings::pages`] (the family's bit included
    /// where it belongs), or `None` past the end.
    pub fn mask(&self, index: usize) -> Option<ReadingMask> {
        self.pages.get(index).map(|page| mask_of(index, page))
    }

    /// Where `page` is in [`Readings::pages`], if it is named.
    pub(crate) fn index_of(&self, page: &CodePage) -> Option<usize> {
        self.pages
            .iter()
            .position(|known| std::ptr::eq(*known, page))
    }

    /// Whether the page at `index` in [`Readings::pages`] is read, not only named.
    pub fn reads(&self, index: usize) -> bool {
        index < MAX_PAGES && self.active & 1 << index != 0
    }

    /// The pages read, in mask-bit order.
    pub fn read_pages(&self) -> impl Iterator<Item = &'static CodePage> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter(|&(bit, _)| self.reads(bit))
            .map(|(_, page)| *page)
    }

    /// The pages named, in mask-bit order: all the pages read, and for readings made by
    /// [`Readings::among`], the others of their set.
    pub fn pages(&self) -> &[&'static CodePage] {
        &self.pages
    }

    /// The byte `ch` stands for, if some page produces it for a byte `>= 0x80`.
    #[inline]
    pub fn origin(&self, ch: char) -> Option<ByteOrigin> {
        let mut utf8 = [0u8; 4];
        match u32::from(ch) {
            cp @ 0..0x100 => self.low[cp as usize],
            // The rule asks this of every repaired character (Cyrillic, Greek, punctuation):
            // the index by UTF-8 bytes answers with a lookup or two, where `high` is searched.
            0x100..0x10000 => self
                .origin_at(ch.encode_utf8(&mut utf8).as_bytes())
                .map(|(o, _)| o),
            _ => self
                .high
                .binary_search_by_key(&ch, |(c, _)| *c)
                .ok()
                .map(|i| self.high[i].1),
        }
    }

    /// The byte the UTF-8 character at the start of `bytes` stands for, and the character's
    /// length: [`Readings::origin`] of the decoded character, without decoding it. `None`
    /// when `bytes` starts with no character some page produces (ASCII, or bytes that are no
    /// well-formed UTF-8, included).
    #[inline(always)]
    pub fn origin_at(&self, bytes: &[u8]) -> Option<(ByteOrigin, usize)> {
        match *bytes.first()? {
            0x00..=0xC1 => None,
            lead @ 0xC2..=0xDF => {
                let next = continuation(bytes, 1)?;
                let origin = self.by_utf8.two[usize::from(lead - 0xC2) * 64 + next]?;
                Some((origin, 2))
            }
            lead @ 0xE0..=0xEF => {
                let second = continuation(bytes, 1)?;
                let third = continuation(bytes, 2)?;
                let block = self.by_utf8.three_blocks[usize::from(lead & 0x0F) * 64 + second];
                let origin = (*self.by_utf8.three.get(usize::from(block).checked_sub(1)?)?)[third]?;
                Some((origin, 3))
            }
            // Four-byte characters: no shipped page has one, so the slow way will do.
            _ => match bstr::decode_utf8(bytes) {
                (Some(ch), len) => Some((self.origin(ch)?, len)),
                (None, _) => None,
            },
        }
    }

    /// True when a buffer may be cut just before `byte` without splitting a UTF-8 character or
    /// a double-encoded sequence: `byte` is no continuation byte, and no character standing
    /// for a continuation byte starts with it. ASCII always qualifies, and so does the
    /// candidate filter's `0xC3` for the Western pages (it only ever starts a sequence).
    #[inline]
    pub fn is_cut_safe(&self, byte: u8) -> bool {
        !self.cut_unsafe[usize::from(byte)]
    }

    /// The names of the pages in `mask`, joined by `+`.
    pub fn describe(&self, mask: ReadingMask) -> String {
        let names: Vec<&str> = self
            .pages
            .iter()
            .enumerate()
            .filter(|(bit, _)| mask.pages() & (1 << bit) != 0)
            .map(|(_, page)| page.name)
            .collect();
        names.join("+")
    }

    /// How a sequence with this mask is counted: one page's name when only that page explains
    /// it, `either` when several do, `mixed` when no single page does.
    pub fn reading_name(&self, mask: ReadingMask) -> &'static str {
        if mask.is_mixed() {
            return "mixed";
        }
        if mask.pages().count_ones() > 1 {
            return "either";
        }
        let bit = mask.pages().trailing_zeros() as usize;
        self.pages.get(bit).map_or("mixed", |page| page.name)
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = (char, ByteOrigin)> + '_ {
        let low = self.low.iter().enumerate().filter_map(|(cp, origin)| {
            let origin = (*origin)?;
            Some((char::from_u32(cp as u32)?, origin))
        });
        low.chain(self.high.iter().copied())
    }
}

/// The mask of `page` as the page at `index` of a set: its own bit, and the family's for the
/// Western pair.
fn mask_of(index: usize, page: &CodePage) -> ReadingMask {
    let family = if page.is_western() {
        ReadingMask::WESTERN_FAMILY.0
    } else {
        0
    };
    ReadingMask(1 << index | family)
}

/// The low six bits of `bytes[at]` when it is a UTF-8 continuation byte.
#[inline]
fn continuation(bytes: &[u8], at: usize) -> Option<usize> {
    let byte = *bytes.get(at)?;
    (byte & 0xC0 == 0x80).then_some(usize::from(byte & 0x3F))
}

/// The reverse index keyed by the UTF-8 bytes of each character instead of the character.
///
/// Two-byte characters (lead `C2..=DF`) sit in one direct table of 30 × 64 entries. Three-byte
/// characters go through two steps: the lead's low four bits and the second byte's six pick a
/// block of 64 (the Windows-1252 punctuation fills three: `E2 80`, `E2 82`, `E2 84`), and the
/// third byte's six bits pick the entry. A byte sequence that is no well-formed character is
/// in neither, since only the encodings of characters were put in.
#[derive(Clone)]
struct Utf8Index {
    two: Box<[Option<ByteOrigin>; 30 * 64]>,
    /// `three_blocks[(lead & 0x0F) * 64 + (second & 0x3F)]` is one more than the block's
    /// index in `three`, or 0 where no character starts with those two bytes.
    three_blocks: Box<[u16; 16 * 64]>,
    three: Vec<[Option<ByteOrigin>; 64]>,
}

impl fmt::Debug for Utf8Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utf8Index")
            .field("three_byte_blocks", &self.three.len())
            .finish()
    }
}

impl Utf8Index {
    fn new(entries: impl Iterator<Item = (char, ByteOrigin)>) -> Utf8Index {
        let mut index = Utf8Index {
            two: Box::new([None; 30 * 64]),
            three_blocks: Box::new([0; 16 * 64]),
            three: Vec::new(),
        };
        let mut utf8 = [0u8; 4];
        for (ch, origin) in entries {
            match *ch.encode_utf8(&mut utf8).as_bytes() {
                [lead, next] => {
                    index.two[usize::from(lead - 0xC2) * 64 + usize::from(next & 0x3F)] =
                        Some(origin)
                }
                [lead, second, third] => {
                    let slot = usize::from(lead & 0x0F) * 64 + usize::from(second & 0x3F);
                    if index.three_blocks[slot] == 0 {
                        index.three.push([None; 64]);
                        // At most 16 × 64 blocks, one per slot: the count fits.
                        index.three_blocks[slot] = index.three.len() as u16;
                    }
                    let block = usize::from(index.three_blocks[slot]) - 1;
                    index.three[block][usize::from(third & 0x3F)] = Some(origin);
                }
                // ASCII is never indexed; four-byte characters are looked up by `origin`.
                _ => {}
            }
        }
        index
    }
}

/// A UTF-8 lead byte of a multi-byte sequence that can start well-formed UTF-8.
#[inline]
pub fn is_lead_byte(byte: u8) -> bool {
    (0xC2..=0xF4).contains(&byte)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn readings_give_each_character_the_first_byte_and_the_pages_that_agree_on_it() {
        // Every page alone, the Western pair, all pages, and all pages with only some read.
        let mut sets: Vec<(Vec<&'static CodePage>, u16)> =
            ALL.iter().map(|page| (vec![*page], 1)).collect();
        sets.push((WESTERN.to_vec(), 0b11));
        sets.push((ALL.to_vec(), (1 << ALL.len()) - 1));
        sets.push((ALL.to_vec(), 0b1_0000_0000_1011));
        for (pages, active) in sets {
            let readings = Readings::among(&pages, |bit| active & 1 << bit != 0).unwrap();
            // Each read page's bytes for each character, in page order and then byte order.
            let mut bytes_of: BTreeMap<char, Vec<(usize, u8)>> = BTreeMap::new();
            for bit in (0..pages.len()).filter(|bit| active & 1 << bit != 0) {
                for byte in 0x80..=0xFFu8 {
                    if let Some(ch) = pages[bit].decode(byte) {
                        bytes_of.entry(ch).or_default().push((bit, byte));
                    }
                }
            }
            let mut given = 0;
            for ch in (0..=0x10FFFF).filter_map(char::from_u32) {
                let bytes = bytes_of.get(&ch).map_or(&[][..], Vec::as_slice);
                let expected = bytes.first().map(|&(_, first)| {
                    let mask = (bytes.iter())
                        .filter(|&&(_, byte)| byte == first)
                        .fold(0, |mask, &(bit, _)| mask | mask_of(bit, pages[bit]).0);
                    (first, ReadingMask(mask), MarkerTraits::of(ch))
                });
                let origin = readings.origin(ch).map(|o| (o.byte, o.mask, o.traits));
                assert_eq!(origin, expected, "{ch:?} in {pages:?}, {active:b}");
                given += usize::from(expected.is_some());
            }
            assert_eq!(given, readings.entries().count(), "{pages:?}");
        }
    }

    #[test]
    fn garble_reads_every_byte_through_the_chosen_page() {
        assert_eq!(garble("é".as_bytes(), |_| &LATIN1).as_deref(), Some("Ã©"));
        assert_eq!(
            garble("’".as_bytes(), |_| &LATIN1).as_deref(),
            Some("â\u{80}\u{99}")
        );
        let mixed = garble("’".as_bytes(), |b| {
            if b == 0x99 { &LATIN1 } else { &WINDOWS_1252 }
        });
        assert_eq!(mixed.as_deref(), Some("â€\u{99}"));
    }

    #[test]
    fn latin1_is_the_identity() {
        for byte in 0x80..=0xFFu8 {
            assert_eq!(LATIN1.decode(byte), Some(char::from(byte)));
        }
    }

    /// The table must agree with the WHATWG windows-1252 decoder byte for byte.
    #[test]
    fn windows_1252_agrees_with_encoding_rs() {
        for byte in 0x80..=0xFFu8 {
            let input = [byte];
            let (decoded, had_errors) =
                encoding_rs::WINDOWS_1252.decode_without_bom_handling(&input);
            assert!(!had_errors);
            let expected = decoded.chars().next();
            assert_eq!(WINDOWS_1252.decode(byte), expected, "byte {byte:#04x}");
        }
    }

    /// Every generated page agrees with a published table: the WHATWG decoder of the same
    /// name where `encoding_rs` has one (a byte it calls malformed is undefined here), glibc's
    /// charmap for the two DOS pages.
    #[test]
    fn generated_pages_agree_with_published_tables() {
        let whatwg: [(&CodePage, &encoding_rs::Encoding); 9] = [
            (&WINDOWS_1250, encoding_rs::WINDOWS_1250),
            (&WINDOWS_1251, encoding_rs::WINDOWS_1251),
            (&WINDOWS_1253, encoding_rs::WINDOWS_1253),
            (&WINDOWS_1254, encoding_rs::WINDOWS_1254),
            (&WINDOWS_1257, encoding_rs::WINDOWS_1257),
            (&ISO_8859_2, encoding_rs::ISO_8859_2),
            (&ISO_8859_15, encoding_rs::ISO_8859_15),
            (&MAC_ROMAN, encoding_rs::MACINTOSH),
            (&KOI8_R, encoding_rs::KOI8_R),
        ];
        for (page, encoding) in whatwg {
            for byte in 0x80..=0xFFu8 {
                let input = [byte];
                let (decoded, had_errors) = encoding.decode_without_bom_handling(&input);
                let expected = decoded.chars().next().filter(|_| !had_errors);
                assert_eq!(page.decode(byte), expected, "{} {byte:#04x}", page.name);
            }
        }
        let charmaps = [
            (
                &CP437,
                "IBM437",
                include_str!("../../tests/data/charmaps/IBM437"),
            ),
            (
                &CP850,
                "IBM850",
                include_str!("../../tests/data/charmaps/IBM850"),
            ),
        ];
        for (page, file, text) in charmaps {
            let mut checked = 0;
            for line in text.lines() {
                // `<U00C7>     /x80         LATIN CAPITAL LETTER C WITH CEDILLA`
                let mut fields = line.split_whitespace();
                let (Some(code), Some(byte)) = (fields.next(), fields.next()) else {
                    continue;
                };
                let (Some(code), Some(byte)) = (
                    code.strip_prefix("<U").and_then(|c| c.strip_suffix('>')),
                    byte.strip_prefix("/x"),
                ) else {
                    continue;
                };
                let byte = u8::from_str_radix(byte, 16).expect("a byte");
                if byte < 0x80 {
                    continue;
                }
                let expected = u32::from_str_radix(code, 16).ok().and_then(char::from_u32);
                assert_eq!(page.decode(byte), expected, "{file} {byte:#04x}");
                checked += 1;
            }
            assert_eq!(checked, 128, "{file} maps every high byte");
        }
    }

    /// Every page is found by its own name and its aliases, and only the Western pair mixes.
    #[test]
    fn names_and_families() {
        for page in ALL {
            assert!(std::ptr::eq(by_name(page.name).expect("own name"), page));
            assert!(std::ptr::eq(
                by_name(&page.name.to_uppercase()).expect("any case"),
                page
            ));
        }
        for (alias, page) in ALIASES {
            assert!(
                std::ptr::eq(by_name(alias).expect("alias"), page),
                "{alias}"
            );
        }
        assert!(by_name("utf-8").is_none());
        let readings = Readings::new(&[&LATIN1, &WINDOWS_1252, &WINDOWS_1251]).expect("three");
        let of = |c: char| readings.origin(c).map(|o| o.mask).expect("indexed");
        // `€` and `\u{99}`: Windows-1252 and ISO-8859-1 mix; `Р` and `\u{99}` do not.
        assert!(of('€').and(of('\u{99}')).is_mixed());
        assert!(!of('€').and(of('\u{99}')).is_empty());
        assert!(of('Р').and(of('\u{99}')).is_empty());
        assert_eq!(readings.reading_name(of('Р').and(of('™'))), "cp1251");
        assert!(Readings::new(&ALL).is_ok());
    }

    #[test]
    fn western_readings_index_every_byte() {
        let readings = Readings::western();
        for page in WESTERN {
            for byte in 0x80..=0xFFu8 {
                let Some(ch) = page.decode(byte) else {
                    continue;
                };
                let origin = readings.origin(ch).expect("indexed");
                assert_eq!(origin.byte, byte);
            }
        }
        // Shared by both pages: A0..FF and the five bytes Windows-1252 leaves undefined.
        let both = ReadingMask(0b11 | ReadingMask::WESTERN_FAMILY.0);
        assert_eq!(readings.origin('é').map(|o| o.mask), Some(both));
        assert_eq!(readings.origin('\u{81}').map(|o| o.mask), Some(both));
        assert_eq!(readings.origin('\u{80}').map(|o| o.mask), readings.mask(0));
        assert_eq!(readings.origin('€').map(|o| o.mask), readings.mask(1));
        assert_eq!(readings.origin('ā'), None);
        assert_eq!(readings.reading_name(both), "either");
        assert_eq!(readings.reading_name(ReadingMask(0b10)), "cp1252");
        assert_eq!(readings.reading_name(ReadingMask::WESTERN_FAMILY), "mixed");
    }

    /// [`Readings::origin`] and the byte-keyed index answer exactly what the lists of
    /// characters say, for every character, under the Western pair and under every page; and
    /// the index answers what decoding answers for every two- and three-byte prefix, valid or
    /// not.
    #[test]
    fn origin_at_agrees_with_origin_everywhere() {
        // What each character stands for, by the lists the index is made of.
        let listed = |readings: &Readings, ch: char| match u32::from(ch) {
            cp @ 0..0x100 => readings.low[cp as usize],
            _ => (readings.high.iter())
                .find(|(c, _)| *c == ch)
                .map(|(_, origin)| *origin),
        };
        let all = Readings::new(&ALL).expect("the shipped pages");
        for readings in [&Readings::western(), &all] {
            let mut utf8 = [0u8; 4];
            for ch in (0..=0x10FFFFu32).filter_map(char::from_u32) {
                let bytes = ch.encode_utf8(&mut utf8).as_bytes();
                let expected = listed(readings, ch);
                assert_eq!(readings.origin(ch), expected, "{ch:?}");
                assert_eq!(
                    readings.origin_at(bytes),
                    expected.map(|o| (o, bytes.len()))
                );
            }
        }
        let readings = Readings::western();
        for first in 0x80..=0xFFu8 {
            for second in 0..=0xFFu8 {
                for third in [0x00, 0x41, 0x80, 0x99, 0xAC, 0xBF, 0xC0] {
                    let bytes = [first, second, third];
                    let expected = match bstr::decode_utf8(bytes) {
                        (Some(ch), len) => readings.origin(ch).map(|o| (o, len)),
                        (None, _) => None,
                    };
                    assert_eq!(readings.origin_at(&bytes), expected, "{bytes:02x?}");
                }
            }
        }
        assert_eq!(readings.origin_at(&[0xC3]), None);
        assert_eq!(readings.origin_at(&[0xE2, 0x82]), None);
    }

    #[test]
    fn cut_safe_bytes_never_split_a_sequence() {
        let readings = Readings::western();
        for byte in 0..0x80u8 {
            assert!(readings.is_cut_safe(byte));
        }
        for byte in [0xC2, 0xC5, 0xC6, 0xCB, 0xE2, 0x80, 0xBF] {
            assert!(!readings.is_cut_safe(byte), "{byte:#04x}");
        }
        for byte in [0xC3, 0xC4, 0xD0, 0xE3, 0xE4, 0xF0] {
            assert!(readings.is_cut_safe(byte), "{byte:#04x}");
        }
    }
}
