//! Where a run may start: the candidate filter in front of the matcher.
//!
//! Every double-encoded sequence is at least two garbled characters: one that stands for a
//! lead byte, then one that stands for a continuation byte. Under the Western pages the first
//! is one of `Â..ô` (`C3 82..C3 B4`) and the second starts with `C2` (ISO-8859-1's
//! `U+0080..U+00BF`) or with `C5`, `C6`, `CB` or `E2` (Windows-1252's extras). So a position
//! can start a sequence only when its first three bytes are in three small sets, which this
//! filter computes from the readings once. Correct text dense in accented letters (`é` is
//! `C3 A9`, followed by a letter) then never reaches the matcher: `memchr` jumps to the next
//! first byte, and three table lookups reject it.
//!
//! A C1 control that stands for a Windows-1252 character (`C2 80..9F`) is a candidate too
//! when the scanner looks for them ([`super::controls`]), so one search serves both.
//!
//! Where the CPU has AVX2 (detected at run time, as `memchr` does) and the sets are small, the
//! three bytes are tested 32 positions at a time; elsewhere `memchr` finds the first bytes and
//! the tables confirm them. Both give the same answers.
//!
//! The sets of the other pages are not small: under Windows-1251 every Cyrillic letter stands
//! for a lead byte, and in correct Russian or Ukrainian text almost every letter is followed
//! by the first byte of another, which the sets cannot tell from one standing for a
//! continuation byte. For them the search goes the other way: to the characters that stand for
//! a continuation byte right after a non-ASCII character (`CharsAfterNonAscii`, a vector
//! search of byte pairs), then back to the character before, which the tables confirm. A
//! letter followed by a letter is then passed over at vector speed; the positions found are
//! those of the search by first bytes where a continuation character follows.
//!
//! The filter is exact in one direction: every position where [`super::matcher::match_at`]
//! or `controls::control_at` succeeds is a candidate (tested on every character the
//! readings produce). A candidate may still fail to match.

use super::codepage::{Readings, is_lead_byte};
use super::matcher::start_of_char_before;
use crate::byte_search::has_avx2;
use crate::byte_search::pairs::CharsAfterNonAscii;

/// The bit of [`CandidateFilter::roles`] for a byte that may start a sequence, may be its
/// second byte, or may be its third.
const FIRST: u8 = 1;
const SECOND: u8 = 2;
const THIRD: u8 = 4;
/// The first byte of a C1 control, and the second.
const CONTROL_FIRST: u8 = 8;
const CONTROL_SECOND: u8 = 16;

/// Finds the positions where a run may start.
#[derive(Clone, Debug)]
pub struct CandidateFilter {
    /// For each byte value, the roles it may play in a candidate (the bits above).
    roles: [u8; 256],
    /// The bytes a candidate starts with, for `memchr`.
    firsts: Firsts,
    /// The sets as vector tests, when they are small enough and the CPU has AVX2.
    vector: Option<VectorSets>,
    /// The characters that stand for a continuation byte, searched for first where there is
    /// no vector test and no control to find.
    continuations: Option<CharsAfterNonAscii>,
}

/// Where a walk through one buffer is: the block of positions the vector test looked at last,
/// and the candidates in it not yet returned.
#[derive(Clone, Copy, Debug, Default)]
pub struct Search {
    block_at: usize,
    bits: u64,
    valid: bool,
}

impl Search {
    fn holds(&self, at: usize) -> bool {
        self.valid && (self.block_at..self.block_at + 64).contains(&at)
    }
}

/// The candidate sets in the shape the vector test takes: one first byte, a range that holds
/// every second byte, up to [`MAX_THIRDS`] third bytes; the tables confirm what it finds.
#[derive(Clone, Debug)]
struct VectorSets {
    first: u8,
    second: (u8, u8),
    thirds: [u8; MAX_THIRDS],
    third_count: usize,
    controls: bool,
}

const MAX_THIRDS: usize = 6;

#[derive(Clone, Debug)]
enum Firsts {
    One(u8),
    Two(u8, u8),
    Three(u8, u8, u8),
    /// More first bytes than `memchr3` takes: the role table on every byte.
    Many,
}

impl CandidateFilter {
    /// The filter for runs under `readings`, and for C1 controls too when `controls`.
    pub fn new(readings: &Readings, controls: bool) -> CandidateFilter {
        let mut roles = [0u8; 256];
        let mut utf8 = [0u8; 4];
        let (leads, continuations): (Vec<char>, Vec<char>) = {
            let entries: Vec<_> = readings.entries().collect();
            let leads = entries
                .iter()
                .filter(|(_, o)| is_lead_byte(o.byte))
                .map(|&(c, _)| c)
                .collect();
            let continuations = entries
                .iter()
                .filter(|(_, o)| (0x80..=0xBF).contains(&o.byte))
                .map(|&(c, _)| c)
                .collect();
            (leads, continuations)
        };
        // The first three bytes of every lead character followed by every continuation
        // character: each garbled character is non-ASCII, so two or more bytes long. The
        // third is the lead's own or, after a two-byte lead, the first of the continuation's.
        // (The matcher reads no ASCII character as garbled: nor does the filter.)
        let mut two_byte_lead = false;
        for lead in leads.iter().filter(|_| !continuations.is_empty()) {
            if let [first, second, ref rest @ ..] = *lead.encode_utf8(&mut utf8).as_bytes() {
                roles[usize::from(first)] |= FIRST;
                roles[usize::from(second)] |= SECOND;
                match rest.first() {
                    Some(&third) => roles[usize::from(third)] |= THIRD,
                    None => two_byte_lead = true,
                }
            }
        }
        for next in continuations.iter().filter(|_| two_byte_lead) {
            let first = next.encode_utf8(&mut utf8).as_bytes()[0];
            roles[usize::from(first)] |= THIRD;
        }
        if controls {
            roles[0xC2] |= CONTROL_FIRST;
            for role in &mut roles[0x80..=0x9F] {
                *role |= CONTROL_SECOND;
            }
        }
        let starts: Vec<u8> = (0..=255u8)
            .filter(|&b| roles[usize::from(b)] & (FIRST | CONTROL_FIRST) != 0)
            .collect();
        let firsts = match *starts.as_slice() {
            [a] => Firsts::One(a),
            [a, b] => Firsts::Two(a, b),
            [a, b, c] => Firsts::Three(a, b, c),
            _ => Firsts::Many,
        };
        let vector = VectorSets::of(&roles, controls).filter(|_| has_avx2());
        let continuations = (vector.is_none() && !controls)
            .then(|| CharsAfterNonAscii::new(continuations.iter().copied()));
        CandidateFilter {
            roles,
            firsts,
            vector,
            continuations,
        }
    }

    /// The same filter searching by first bytes alone, without the vector test: what other
    /// CPUs run for the Western pages, and the tests' oracle.
    #[cfg(test)]
    fn portable(&self) -> CandidateFilter {
        CandidateFilter {
            vector: None,
            continuations: None,
            ..self.clone()
        }
    }

    /// Whether a run may start at `at`.
    #[inline]
    pub fn is_candidate(&self, haystack: &[u8], at: usize) -> bool {
        let role = |k: usize| {
            haystack
                .get(at + k)
                .map_or(0, |&b| self.roles[usize::from(b)])
        };
        let first = role(0);
        if first & FIRST != 0 && role(1) & SECOND != 0 && role(2) & THIRD != 0 {
            return true;
        }
        first & CONTROL_FIRST != 0 && role(1) & CONTROL_SECOND != 0
    }

    /// The first candidate at or after `from`.
    #[inline]
    pub fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        self.next(&mut Search::default(), haystack, from)
    }

    /// The first candidate at or after `from`, for a caller that walks one buffer forward
    /// with `search`: what the vector test found beyond the answer is kept for the next call.
    #[inline]
    pub fn next(&self, search: &mut Search, haystack: &[u8], mut from: usize) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(sets) = &self.vector {
            loop {
                if search.holds(from) {
                    let mut bits = search.bits & (u64::MAX << (from - search.block_at));
                    while bits != 0 {
                        let candidate = search.block_at + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.is_candidate(haystack, candidate) {
                            search.bits = bits;
                            return Some(candidate);
                        }
                    }
                    from = search.block_at + avx2::BLOCK;
                }
                // SAFETY: `vector` is set only where the CPU was found to have AVX2.
                let Some((block_at, bits)) = (unsafe { avx2::next_block(sets, haystack, from) })
                else {
                    // Every position before the last `READ - 1` was tested and holds none.
                    *search = Search::default();
                    from = from.max(haystack.len().saturating_sub(avx2::READ - 1));
                    break;
                };
                *search = Search {
                    block_at,
                    bits,
                    valid: true,
                };
                from = block_at;
            }
        }
        let _ = search;
        match &self.continuations {
            Some(continuations) => self.find_before_continuation(continuations, haystack, from),
            None => self.find_portable(haystack, from),
        }
    }

    /// The first candidate at or after `from` that a character in `continuations` follows:
    /// found from that character, as the module says.
    fn find_before_continuation(
        &self,
        continuations: &CharsAfterNonAscii,
        haystack: &[u8],
        from: usize,
    ) -> Option<usize> {
        continuations
            .positions(haystack, from..haystack.len())
            .find_map(|second| {
                let first = start_of_char_before(haystack, second, from)?;
                self.is_candidate(haystack, first).then_some(first)
            })
    }

    fn find_portable(&self, haystack: &[u8], mut from: usize) -> Option<usize> {
        loop {
            let rest = haystack.get(from..)?;
            let found = match self.firsts {
                Firsts::One(a) => memchr::memchr(a, rest),
                Firsts::Two(a, b) => memchr::memchr2(a, b, rest),
                Firsts::Three(a, b, c) => memchr::memchr3(a, b, c, rest),
                Firsts::Many => rest
                    .iter()
                    .position(|&b| self.roles[usize::from(b)] & (FIRST | CONTROL_FIRST) != 0),
            };
            let at = from + found?;
            if self.is_candidate(haystack, at) {
                return Some(at);
            }
            from = at + 1;
        }
    }
}

impl VectorSets {
    fn of(roles: &[u8; 256], controls: bool) -> Option<VectorSets> {
        let with = |role: u8| (0..=255u8).filter(move |&b| roles[usize::from(b)] & role != 0);
        let [first] = *with(FIRST).collect::<Vec<u8>>() else {
            return None;
        };
        let second = (with(SECOND).min()?, with(SECOND).max()?);
        let found: Vec<u8> = with(THIRD).collect();
        if found.len() > MAX_THIRDS {
            return None;
        }
        let mut thirds = [found[0]; MAX_THIRDS];
        thirds[..found.len()].copy_from_slice(&found);
        Some(VectorSets {
            first,
            second,
            thirds,
            third_count: found.len(),
            controls,
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
        _mm256_sub_epi8,
    };

    use super::VectorSets;

    const LANES: usize = 32;
    /// The positions one call tests: two vectors.
    pub(super) const BLOCK: usize = 2 * LANES;
    /// The test reads the two bytes after each position too.
    pub(super) const READ: usize = BLOCK + 2;

    /// The first block of [`BLOCK`] positions, from `from` on, that holds a candidate, and
    /// its candidates as bits (bit k: the block's start + k) before the tables confirm them;
    /// `None` when no whole block is left (the last `READ - 1` positions are not tested).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn next_block(
        sets: &VectorSets,
        haystack: &[u8],
        from: usize,
    ) -> Option<(usize, u64)> {
        let splat = |b: u8| _mm256_set1_epi8(b as i8);
        let first = splat(sets.first);
        let control_first = match sets.controls {
            true => splat(0xC2),
            // A byte no candidate starts with, so that the test below finds none.
            false => first,
        };
        let (low, high) = sets.second;
        let in_range = |v: __m256i, low: u8, high: u8| {
            let offset = _mm256_sub_epi8(v, splat(low));
            _mm256_cmpeq_epi8(_mm256_min_epu8(offset, splat(high - low)), offset)
        };
        let mut at = from;
        while at + READ <= haystack.len() {
            // SAFETY: `READ` bytes lie in `haystack` from `at`, so each unaligned load of
            // `LANES` bytes from `at + k`, `k <= READ - LANES`, stays inside it.
            let load =
                |k: usize| unsafe { _mm256_loadu_si256(haystack.as_ptr().add(at + k).cast()) };
            let (a, b) = (load(0), load(LANES));
            let starts = |v: __m256i| {
                _mm256_or_si256(
                    _mm256_cmpeq_epi8(v, first),
                    _mm256_cmpeq_epi8(v, control_first),
                )
            };
            if _mm256_movemask_epi8(_mm256_or_si256(starts(a), starts(b))) == 0 {
                at += BLOCK;
                continue;
            }
            let half = |k: usize, v0: __m256i| -> u32 {
                let (v1, v2) = (load(k + 1), load(k + 2));
                let mut thirds = _mm256_setzero_si256();
                for &b in &sets.thirds[..sets.third_count] {
                    thirds = _mm256_or_si256(thirds, _mm256_cmpeq_epi8(v2, splat(b)));
                }
                let leads = _mm256_cmpeq_epi8(v0, first);
                let sequences =
                    _mm256_and_si256(leads, _mm256_and_si256(in_range(v1, low, high), thirds));
                let controls = match sets.controls {
                    true => _mm256_and_si256(
                        _mm256_cmpeq_epi8(v0, control_first),
                        in_range(v1, 0x80, 0x9F),
                    ),
                    false => _mm256_setzero_si256(),
                };
                _mm256_movemask_epi8(_mm256_or_si256(sequences, controls)) as u32
            };
            let bits = u64::from(half(0, a)) | (u64::from(half(LANES, b)) << LANES);
            if bits != 0 {
                return Some((at, bits));
            }
            at += BLOCK;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::codepage::{ALL, LATIN1, WINDOWS_1252};
    use crate::mojibake::controls::control_at;
    use crate::mojibake::matcher::match_at;

    #[test]
    fn the_roles_are_the_first_three_bytes_of_every_garbled_pair() {
        // Every page alone, the Western pair, all pages, with and without controls.
        let mut sets: Vec<Readings> = ALL
            .iter()
            .map(|page| Readings::new(&[page]).unwrap())
            .collect();
        sets.push(Readings::western());
        sets.push(Readings::all());
        for readings in &sets {
            let entries: Vec<_> = readings.entries().collect();
            let of = |pick: fn(u8) -> bool| -> Vec<char> {
                (entries.iter().filter(|(_, o)| pick(o.byte)))
                    .map(|&(ch, _)| ch)
                    .collect()
            };
            let leads = of(is_lead_byte);
            let continuations = of(|byte| (0x80..=0xBF).contains(&byte));
            let mut roles = [0u8; 256];
            for lead in &leads {
                for next in &continuations {
                    let pair = format!("{lead}{next}");
                    for (role, byte) in [FIRST, SECOND, THIRD].into_iter().zip(pair.bytes()) {
                        roles[usize::from(byte)] |= role;
                    }
                }
            }
            for controls in [false, true] {
                let filter = CandidateFilter::new(readings, controls);
                let mask = FIRST | SECOND | THIRD;
                let found: Vec<u8> = filter.roles.iter().map(|role| role & mask).collect();
                assert_eq!(found, roles, "{:?}", readings.pages());
            }
        }
    }

    #[test]
    fn correct_accents_are_no_candidates() {
        let filter = CandidateFilter::new(&Readings::western(), true);
        // A raw C1 control at the end: `C2 85`, no character of its own.
        let text = &["abc é ÿ Ã© ’ ".as_bytes(), &[0xC2, 0x85]].concat();
        assert_eq!(filter.find(text, 0), Some(10));
        assert_eq!(filter.find(text, 11), Some(19));
        assert_eq!(filter.find(text, 20), None);
        let without_controls = CandidateFilter::new(&Readings::western(), false);
        assert_eq!(without_controls.find(text, 11), None);
    }

    /// Every character the readings can garble, followed by every character that stands for
    /// a continuation byte (and by nothing, and by ASCII), is found wherever it matches.
    #[test]
    fn every_match_is_a_candidate() {
        for pages in [
            vec![&LATIN1],
            vec![&WINDOWS_1252],
            vec![&LATIN1, &WINDOWS_1252],
        ] {
            let readings = Readings::new(&pages).unwrap();
            let filter = CandidateFilter::new(&readings, true);
            let chars: Vec<char> = readings.entries().map(|(c, _)| c).collect();
            let mut text = String::new();
            for &a in &chars {
                for &b in &chars {
                    for tail in ["", "a", "\u{80}", "\u{a9}", "€"] {
                        text.clear();
                        text.push(a);
                        text.push(b);
                        text.push_str(tail);
                        let bytes = text.as_bytes();
                        let found = match_at(&readings, bytes, 0).is_some()
                            || control_at(bytes, 0).is_some();
                        assert!(
                            !found || filter.is_candidate(bytes, 0),
                            "{text:?} matches but is no candidate"
                        );
                    }
                }
            }
        }
    }

    /// The vector test and the portable search agree at every position of text dense in
    /// the bytes the sets hold.
    #[test]
    fn the_vector_test_finds_what_the_portable_search_finds() {
        let bytes = [
            b'a', b'\n', 0xC3, 0xC2, 0x82, 0xA9, 0xB4, 0xB5, 0xC5, 0xE2, 0x80, 0x9F, 0xA0,
        ];
        let readings = Readings::western();
        for controls in [true, false] {
            let filter = CandidateFilter::new(&readings, controls);
            let portable = filter.portable();
            let mut state = 0x2545_f491_u32;
            for len in [0, 1, 2, 3, 33, 34, 35, 66, 67, 100, 257] {
                for _ in 0..200 {
                    let text: Vec<u8> = (0..len)
                        .map(|_| {
                            state ^= state << 13;
                            state ^= state >> 17;
                            state ^= state << 5;
                            bytes[state as usize % bytes.len()]
                        })
                        .collect();
                    // One walk, as a scan makes it, keeping what each call found.
                    let mut search = Search::default();
                    let mut from = 0;
                    loop {
                        let found = filter.next(&mut search, &text, from);
                        assert_eq!(found, portable.find(&text, from), "{text:02X?} from {from}");
                        match found {
                            // Runs are skipped whole: the next search starts past a few bytes.
                            Some(at) => from = at + 1 + (at % 3),
                            None => break,
                        }
                    }
                }
            }
        }
    }

    /// Every page alone (the other readings' scanners), through the search from the
    /// continuation characters: every pair of a character the page gives to a lead byte and
    /// one it gives to a continuation byte (then nothing, ASCII, or another such character) is
    /// found where it starts.
    #[test]
    fn every_match_of_every_page_is_found() {
        for page in ALL {
            let readings = Readings::new(&[page]).unwrap();
            let filter = CandidateFilter::new(&readings, false);
            let (leads, continuations): (Vec<char>, Vec<char>) = {
                let entries: Vec<_> = readings.entries().collect();
                let of = |keep: fn(u8) -> bool| -> Vec<char> {
                    entries
                        .iter()
                        .filter(|(_, o)| keep(o.byte))
                        .map(|&(c, _)| c)
                        .collect()
                };
                (of(is_lead_byte), of(|b| (0x80..=0xBF).contains(&b)))
            };
            let mut text = String::new();
            for &a in &leads {
                for &b in &continuations {
                    for tail in ["", "a", "\u{80}", "\u{a9}", "€"] {
                        text.clear();
                        text.push('x');
                        text.push(a);
                        text.push(b);
                        text.push_str(tail);
                        let bytes = text.as_bytes();
                        if match_at(&readings, bytes, 1).is_some() {
                            assert_eq!(
                                filter.find(bytes, 0),
                                Some(1),
                                "{}: {text:?} matches but is not found",
                                page.name
                            );
                        }
                    }
                }
            }
        }
    }

    /// For every page alone, on text dense in its characters (valid or cut), walked as a scan
    /// walks it: the search from the continuation characters finds candidates the search by
    /// first bytes finds, and among them every one where a match starts.
    #[test]
    fn the_search_from_continuations_finds_every_match_the_first_bytes_find() {
        let mut state = 0x2545_f491_u32;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize % n
        };
        for page in ALL {
            let readings = Readings::new(&[page]).unwrap();
            let filter = CandidateFilter::new(&readings, false);
            let by_firsts = filter.portable();
            let chars: Vec<char> = readings.entries().map(|(c, _)| c).collect();
            let mut pieces: Vec<Vec<u8>> = chars.iter().map(|c| c.to_string().into()).collect();
            pieces.extend(
                [
                    &b" "[..],
                    b"a",
                    b"\n",
                    b"\xC3",
                    b"\x80",
                    b"\xD0",
                    b"\xE2\x80",
                ]
                .map(Vec::from),
            );
            for len in [0, 1, 5, 30, 100, 300] {
                for _ in 0..40 {
                    let text: Vec<u8> = (0..len)
                        .flat_map(|_| pieces[next(pieces.len())].clone())
                        .collect();
                    let matches = |found: &dyn Fn(usize) -> Option<usize>| {
                        let (mut from, mut all, mut matched) = (0, Vec::new(), Vec::new());
                        while let Some(at) = found(from) {
                            all.push(at);
                            match match_at(&readings, &text, at) {
                                Some(m) => {
                                    matched.push(at);
                                    from = at + m.len;
                                }
                                None => from = at + 1,
                            }
                        }
                        (all, matched)
                    };
                    let (found, matched) = matches(&|from| filter.find(&text, from));
                    let (candidates, expected) = matches(&|from| by_firsts.find(&text, from));
                    assert_eq!(matched, expected, "{}: {text:02X?}", page.name);
                    assert!(
                        found.iter().all(|at| candidates.contains(at)),
                        "{}: {text:02X?}",
                        page.name
                    );
                }
            }
        }
    }

    #[test]
    fn every_control_is_a_candidate() {
        let filter = CandidateFilter::new(&Readings::western(), true);
        for byte in 0x80..=0x9Fu8 {
            let bytes = [b'a', 0xC2, byte, b'b'];
            assert_eq!(filter.find(&bytes, 0), Some(1), "C2 {byte:02X}");
        }
    }
}
