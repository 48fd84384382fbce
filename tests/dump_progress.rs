//! A dump judged not UTF-8 partway through its repair gives back to the progress bar what its
//! reading had added: the file is then read again (transcoded) or skipped, and the bar would
//! otherwise count its bytes twice or run past 100%.

use std::path::Path;

use undouble::Error;
use undouble::charset::SqlDialect;
use undouble::dump::{DumpOptions, fix_dump};
use undouble::engine::{EngineOptions, Input, Utf8Gate};
use undouble::mojibake::{Readings, Scanner, Strictness};

/// A MySQL dump of about 24 MB (three blocks and more) whose last row holds a latin1 byte.
fn dump_with_a_late_latin1_byte() -> Vec<u8> {
    let mut out = b"-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
        CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `body` text,\n  PRIMARY KEY (`id`)\n\
        ) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n"
        .to_vec();
    for id in 1..=700_000 {
        out.extend_from_slice(
            format!("INSERT INTO `t` VALUES ({id},'cafÃ© number {id}');\n").as_bytes(),
        );
    }
    out.extend_from_slice(b"INSERT INTO `t` VALUES (0,'caf\xE9');\n");
    out
}

#[test]
fn a_dump_refused_by_the_gate_takes_back_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.sql");
    let bytes = dump_with_a_late_latin1_byte();
    assert!(bytes.len() > 3 * (8 << 20));
    std::fs::write(&path, &bytes).unwrap();

    let progress = indicatif::ProgressBar::hidden();
    progress.set_length(bytes.len() as u64);
    let engine = EngineOptions {
        mmap: true,
        progress: Some(progress.clone()),
        utf8_gate: Some(Utf8Gate::new(|offset| {
            Err(Error::Usage(format!("not UTF-8 at {offset}")))
        })),
    };
    let options = DumpOptions {
        dialect: SqlDialect::MySql,
        convert_charset: None,
        // Its table is latin1: what is checked here is the gate, not the reload.
        keep_charset: true,
        schema: None,
    };
    let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
    let result = fix_dump(
        &scanner,
        &Input::File(path.clone()),
        std::io::sink(),
        Path::new("-"),
        &options,
        &engine,
        None,
    );
    let Err(Error::Usage(message)) = result else {
        panic!("the gate's refusal, not {result:?}");
    };
    let at = bytes.len() - b"');\n".len() - 1;
    assert_eq!(message, format!("not UTF-8 at {at}"));
    assert_eq!(
        progress.position(),
        0,
        "the bar keeps nothing of the refused dump"
    );
}
