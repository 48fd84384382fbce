//! The errors a library user matches on: a dump the lexer cannot read is an `Error::Dump` that
//! says where and why, not a usage error, and its message is the one the command line prints.

use undouble::{DumpErrorKind, Error, FixOutcome, Fixer, Input, Target};

fn fix(dump: &str) -> Result<FixOutcome, Error> {
    let fixer = Fixer::builder().build().unwrap();
    fixer.fix(&Input::from_bytes(dump), Target::Stream(&mut Vec::new()))
}

#[test]
fn a_dump_that_ends_inside_a_comment_is_a_dump_error_naming_its_line() {
    let error = fix("-- MySQL dump 10.13\n\nSELECT 1;\n/* never closed\n").unwrap_err();
    let Error::Dump {
        path, line, kind, ..
    } = &error
    else {
        panic!("not a dump error: {error:?}");
    };
    assert_eq!(path.to_str(), Some("<bytes>"));
    assert_eq!(*line, 5, "the dump ends on line 5, inside the comment");
    assert!(
        matches!(kind, DumpErrorKind::NotUnderstood { .. }),
        "{kind:?}"
    );
    let text = error.to_string();
    assert!(text.starts_with("<bytes>: line 5 (byte "), "{text}");
    assert!(text.contains("--format text"), "the hint is told: {text}");
}

#[test]
fn the_data_of_an_undefined_table_is_a_dump_error_that_suggests_a_schema() {
    let dump = "-- MySQL dump 10.13\n\nINSERT INTO `t` VALUES (1,'caf\u{c3}\u{a9}');\n";
    let error = fix(dump).unwrap_err();
    let Error::Dump { line, kind, .. } = &error else {
        panic!("not a dump error: {error:?}");
    };
    assert_eq!(*line, 3);
    assert!(
        matches!(kind, DumpErrorKind::UndefinedTable { .. }),
        "{kind:?}"
    );
    assert!(error.to_string().contains("--schema FILE"), "{error}");
}
