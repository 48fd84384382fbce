//! Ranges that tile an input: their fixes, concatenated, are the whole input's fix byte for
//! byte, and their counts sum to its counts, wherever the cuts fall (inside a character, a
//! garbled run, a line), read from a buffer or mapped from a file. Blocks are made small so
//! that small inputs have many, and each range starts and ends among them.

use std::io::Write;
use std::ops::Range;

use proptest::prelude::*;

use super::{EngineOptions, Input, fix_input, scan_input};
use crate::mojibake::{Counts, Readings, Scanner, Strictness};

fn scanner() -> Scanner {
    Scanner::new(Readings::western(), Strictness::default())
}

fn options(block_size: usize, range: Option<Range<u64>>, mmap: bool) -> EngineOptions {
    EngineOptions {
        range,
        block_size,
        mmap,
        ..EngineOptions::default()
    }
}

/// What the counts of an input say, in a form two counts can be compared in.
pub(crate) fn summary(counts: &Counts) -> String {
    let sequences: Vec<String> = counts
        .top_sequences(usize::MAX)
        .iter()
        .chain(counts.top_left_alone(usize::MAX).iter())
        .map(|(bytes, seq)| format!("{bytes:?}:{}:{}", seq.count, seq.first_offset))
        .collect();
    format!(
        "bytes {} non-ascii {} double {} garbled {} left {} not-utf8 {} kept {} invalid {:?} \
         layers {:?} lost {} {} {:?} {sequences:?}",
        counts.bytes,
        counts.non_ascii_chars,
        counts.double_encoded,
        counts.garbled_chars,
        counts.left_alone,
        counts.not_utf8,
        counts.not_utf8_kept,
        counts.first_invalid_offset,
        counts.by_layers(),
        counts.lost_bytes,
        counts.lost_bytes_repaired,
        counts.lost_byte_offsets,
    )
}

/// The ranges the cuts make of an input, the last open to its end.
pub(crate) fn tiling(cuts: &[u64]) -> Vec<Range<u64>> {
    let mut cuts = cuts.to_vec();
    cuts.sort_unstable();
    let mut ranges = Vec::new();
    let mut start = 0;
    for cut in cuts {
        ranges.push(start..cut);
        start = cut;
    }
    ranges.push(start..u64::MAX);
    ranges
}

/// Checks the tiling property for `bytes` cut at `cuts`, from a buffer, from a file mapped and
/// from a file read.
fn check(bytes: &[u8], block_size: usize, cuts: &[u64]) {
    let scanner = scanner();
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
    let path = file.path().to_path_buf();
    let input = |from_file: bool| match from_file {
        false => Input::from_bytes(bytes.to_vec()),
        true => Input::from_arg(&path),
    };
    for (from_file, mmap) in [(false, true), (true, true), (true, false)] {
        let name = match (from_file, mmap) {
            (false, _) => "buffer",
            (true, true) => "mapped file",
            (true, false) => "read file",
        };
        let input = || input(from_file);
        let options = |block_size, range| options(block_size, range, mmap);
        let mut whole = Vec::new();
        let fixed = fix_input(
            &scanner,
            &input(),
            &mut whole,
            "out".as_ref(),
            &options(block_size, None),
        )
        .unwrap();
        let scanned = scan_input(&scanner, &input(), &options(block_size, None)).unwrap();
        assert_eq!(summary(&fixed), summary(&scanned), "{name}");
        let mut joined = Vec::new();
        let mut sum = Counts::default();
        for range in tiling(cuts) {
            let engine = options(block_size, Some(range.clone()));
            let counts =
                fix_input(&scanner, &input(), &mut joined, "out".as_ref(), &engine).unwrap();
            let scanned = scan_input(&scanner, &input(), &engine).unwrap();
            assert_eq!(summary(&counts), summary(&scanned), "{name} {range:?}");
            sum.merge(counts);
        }
        assert_eq!(
            joined, whole,
            "{name}: the ranges' fixes, concatenated, at {cuts:?}"
        );
        assert_eq!(
            summary(&sum),
            summary(&fixed),
            "{name}: the ranges' counts at {cuts:?}"
        );
    }
}

/// Pieces the inputs are made of: clean and garbled text, lines that borrow the text's
/// evidence, bytes that are not UTF-8, lines longer than a block.
const PIECES: &[&[u8]] = &[
    b"plain words ",
    b"\n",
    "café ".as_bytes(),
    "CafÃ© ".as_bytes(),
    "Ã¢â‚¬â„¢".as_bytes(),
    "ÃƒÂ©".as_bytes(),
    "\nÐ¸\n".as_bytes(),
    "Ñ–".as_bytes(),
    "日本語".as_bytes(),
    b"caf\xe9 ",
    b"\xff",
    b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
];

#[test]
fn one_cut_at_every_offset_tiles() {
    let text: Vec<u8> = PIECES.iter().flat_map(|p| p.iter().copied()).collect();
    let text = text.repeat(3);
    for cut in 0..=text.len() as u64 + 1 {
        check(&text, 48, &[cut]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_tiling_gives_the_whole_fix_and_counts(
        pieces in prop::collection::vec(0..PIECES.len(), 0..120),
        block_size in 8usize..300,
        cuts in prop::collection::vec(0u64..4000, 0..4),
    ) {
        let bytes: Vec<u8> = pieces.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
        let len = bytes.len() as u64 + 2;
        let cuts: Vec<u64> = cuts.iter().map(|cut| cut % len).collect();
        check(&bytes, block_size, &cuts);
    }
}
