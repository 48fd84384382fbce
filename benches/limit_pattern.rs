//! A speed limit for `undouble scan` (benches/compare.sh): counts the matches of the seed's
//! byte pattern (`$UTF8_double_encoded` in benches/seed_count.pl: `0xC3` followed by one of
//! eight alternatives) in a file memory-mapped the way undouble maps its inputs (with
//! `Advice::Sequential`), by hand and with no judgement: `memchr` to each `0xC3`, then the
//! bytes after it compared with the pattern. Finding what the seed finds is the least a scan
//! can do; what undouble does beyond it (reading choice, judging runs, counting sequences) is
//! its cost, and this loop is the figure it is measured against.
//!
//! The count is that of `rg -o -a --no-unicode PATTERN FILE | wc -l`, which compare.sh checks
//! on every input: matches are taken left to right and do not overlap. No byte after the
//! `0xC3` of a match is `0xC3`, so a match never hides the start of another, and the next
//! search starts after the end of a match, or at the next byte when the bytes do not match.
//!
//! Run with `cargo bench --bench limit_pattern -- FILE`; prints the count.

/// Whether `rest[at]` is `0xC2` and `rest[at + 1]` is in `low..=high`: one character of the
/// Latin-1 range (U+0080..U+00BF) written as UTF-8, as double encoding leaves them.
fn c2(rest: &[u8], at: usize, low: u8, high: u8) -> bool {
    rest.get(at) == Some(&0xC2) && rest.get(at + 1).is_some_and(|b| (low..=high).contains(b))
}

/// The length of the match that starts with the `0xC3` just before `rest`, `0xC3` included,
/// if one does: the alternatives of the seed's pattern, in its order.
fn matched(rest: &[u8]) -> Option<usize> {
    let any = |at| c2(rest, at, 0x80, 0xBF);
    match rest.first()? {
        0x82..=0x9F => any(1).then_some(4),
        0xA0 => (c2(rest, 1, 0xA0, 0xBF) && any(3)).then_some(6),
        0xA1..=0xAC | 0xAE..=0xAF => (any(1) && any(3)).then_some(6),
        0xAD => (c2(rest, 1, 0x80, 0x9F) && any(3)).then_some(6),
        0xB0 => (c2(rest, 1, 0x90, 0xBF) && any(3) && any(5)).then_some(8),
        0xB1..=0xB3 => (any(1) && any(3) && any(5)).then_some(8),
        0xB4 => (c2(rest, 1, 0x80, 0x8F) && any(3) && any(5)).then_some(8),
        _ => None,
    }
}

/// The number of non-overlapping matches in `haystack`, left to right.
fn count(haystack: &[u8]) -> u64 {
    let mut found = 0;
    let mut at = 0;
    while let Some(offset) = memchr::memchr(0xC3, &haystack[at..]) {
        let start = at + offset;
        match matched(&haystack[start + 1..]) {
            Some(length) => {
                found += 1;
                at = start + length;
            }
            None => at = start + 1,
        }
    }
    found
}

fn main() {
    let path = std::env::args_os()
        .skip(1)
        .find(|a| a != "--bench")
        .expect("usage: limit_pattern FILE");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: the file is only read, and nothing truncates it while the benchmark runs.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("mmap");
    let _ = map.advise(memmap2::Advice::Sequential);
    println!("{}", count(&map));
}
