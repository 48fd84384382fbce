//! The pre-migration survey on whole files: the committed sample dump (`SET NAMES utf8mb4`,
//! `latin1` tables holding double-encoded text) and a `pg_dump` head, with the facts a caller's
//! full pass would pass in computed here from the bytes.

use undouble::charset::{DocumentFormat, FileFacts, SqlDeclarationKind, survey};

/// What `scan` would know after its pass, with `double_encoded` as its scanner counted.
fn facts(bytes: &[u8], double_encoded: u64) -> FileFacts {
    FileFacts {
        first_invalid_offset: std::str::from_utf8(bytes)
            .err()
            .map(|error| error.valid_up_to() as u64),
        non_ascii_chars: bytes.iter().filter(|&&b| b >= 0xC0).count() as u64,
        double_encoded,
    }
}

#[test]
fn the_sample_dump() {
    let dump = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/dump-sample.sql"
    ))
    .expect("the committed sample dump");
    let found = survey(&dump, &facts(&dump, 4321));
    assert_eq!(found.format, DocumentFormat::Sql);

    let declared: Vec<(&str, Option<&str>)> = found
        .declared
        .iter()
        .map(|d| (d.label.as_str(), d.encoding.as_deref()))
        .collect();
    assert_eq!(
        declared,
        [("utf8mb4", Some("UTF-8")), ("utf8mb4", Some("UTF-8"))]
    );
    assert!(
        found
            .storage
            .iter()
            .all(|sql| sql.place.kind == SqlDeclarationKind::TableDefault)
    );
    assert!(
        found
            .storage
            .iter()
            .any(|sql| sql.label == "latin1" && sql.table.as_deref() == Some("countries")),
        "{:?}",
        found.storage
    );

    assert!(found.actual.valid_utf8);
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    let message = &found.diagnostics[0].message;
    assert!(
        message.starts_with(
            "the file is UTF-8 as declared (SET NAMES, line 13) and holds 4,321 \
             double-encoded characters; "
        ),
        "{message}"
    );
    assert!(message.contains("name latin1"), "{message}");

    let json = serde_json::to_value(&found).unwrap_or_default();
    assert_eq!(json["diagnostics"][0]["code"], "double-encoded");
    assert_eq!(json["storage"][0]["statement"], "table-default");
}

#[test]
fn a_pg_dump_head_that_lies() {
    let dump = "--\n-- PostgreSQL database dump\n--\n\n\
        SET statement_timeout = 0;\n\
        SET client_encoding = 'LATIN1';\n\
        SET standard_conforming_strings = on;\n\n\
        COPY public.cities (id, name) FROM stdin;\n\
        1\tK\u{C3}\u{B6}ln\n\
        2\tM\u{FC}nchen\n\
        \\.\n";
    let bytes = dump.as_bytes();
    let found = survey(bytes, &facts(bytes, 1));
    assert_eq!(found.format, DocumentFormat::Sql);
    assert_eq!(found.declared.len(), 1);
    assert_eq!(found.declared[0].encoding.as_deref(), Some("windows-1252"));
    assert!(found.storage.is_empty());
    let messages: Vec<&str> = found
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "declares LATIN1 (SET client_encoding, line 6) but is UTF-8 holding 1 double-encoded \
          character"
        ]
    );
}
