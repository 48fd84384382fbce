//! Single-thread throughput of the scan and of repair to memory, on two inputs built from the
//! real text in `corpus/`:
//!
//! - `sql`: an SQL-like, mostly ASCII file in which 2% of the strings are double-encoded (the
//!   audit of a database dump);
//! - `dense`: correctly encoded multilingual text with nothing to repair, where the candidate
//!   filter's `0xC3` is everywhere (its worst case).
//!
//! Run with `cargo bench --bench throughput`; criterion prints GiB/s.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use undouble::mojibake::codepage::{WINDOWS_1252, garble};
use undouble::mojibake::counts::{CountingSink, Counts, Sequences};
use undouble::mojibake::{Readings, RepairWriter, Scanner, Strictness};

const SIZE: usize = 64 << 20;

fn clean_lines() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/clean-multilingual.txt");
    let text = std::fs::read_to_string(path).expect("corpus/clean-multilingual.txt");
    text.lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// `INSERT` lines of 20 rows; one string in 50 is a multilingual line garbled once.
fn sql_like(lines: &[String]) -> Vec<u8> {
    let ascii: Vec<&String> = lines.iter().filter(|l| l.is_ascii()).collect();
    let other: Vec<&String> = lines.iter().filter(|l| !l.is_ascii()).collect();
    let mut out = Vec::with_capacity(SIZE + 4096);
    let mut row = 0usize;
    while out.len() < SIZE {
        out.extend_from_slice(b"INSERT INTO `notes` VALUES ");
        for i in 0..20 {
            row += 1;
            let text = if row.is_multiple_of(50) {
                let line = other[row / 50 % other.len()];
                garble(line.as_bytes(), |_| &WINDOWS_1252).expect("cp1252 defines every byte")
            } else {
                ascii[row % ascii.len()].replace('\'', "\\'")
            };
            let separator = if i == 0 { "" } else { "," };
            out.extend_from_slice(format!("{separator}({row},'{text}',{})", row * 7).as_bytes());
        }
        out.extend_from_slice(b";\n");
    }
    out
}

fn dense(lines: &[String]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SIZE + 4096);
    while out.len() < SIZE {
        for line in lines {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let lines = clean_lines();
    let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
    for (name, input) in [("sql", sql_like(&lines)), ("dense", dense(&lines))] {
        let mut counts = Counts::default();
        counts.observe_bytes(&input, 0);
        let Ok(()) = scanner.scan(
            &input,
            &mut CountingSink {
                counts: &mut counts,
                base: 0,
                sequences: Sequences::Counted,
            },
        );
        println!(
            "{name}: {} bytes, {} non-ASCII characters, {} double-encoded",
            input.len(),
            counts.non_ascii_chars,
            counts.double_encoded
        );
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_function("scan", |b| {
            b.iter(|| {
                let mut counts = Counts::default();
                counts.observe_bytes(&input, 0);
                let mut sink = CountingSink {
                    counts: &mut counts,
                    base: 0,
                    sequences: Sequences::Counted,
                };
                let Ok(()) = scanner.scan(black_box(&input), &mut sink);
                counts.double_encoded
            })
        });
        let mut output = Vec::with_capacity(input.len());
        group.bench_function("repair", |b| {
            b.iter(|| {
                output.clear();
                let mut writer = RepairWriter::new(&mut output);
                scanner
                    .scan(black_box(&input), &mut writer)
                    .expect("a Vec takes every write");
                output.len()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
