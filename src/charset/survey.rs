//! The pre-migration view of one file: what it declares, what its bytes really are, and where
//! the two disagree.
//!
//! [`policy::determine`](super::policy::determine) answers "which encoding should a reader
//! use?" for a document of a few megabytes. Before a migration the question is different:
//! "is this dump what it says it is, and how much of it is already garbled?" — asked of files
//! of many gigabytes that `scan` has just read once. So [`survey`] never reads the whole file
//! again: the caller passes what its pass already knows ([`FileFacts`]: UTF-8 validity, the
//! non-ASCII and double-encoded counts), and the survey only looks at a bounded head for
//! declarations and for a statistical guess. The one exception is a SQL dump's table
//! charsets, which come with every `CREATE TABLE`; they are found by a line-by-line `memchr`
//! walk that tokenises nothing but `CREATE` statements (see `sql.rs`).
//!
//! Which declarations are read depends on what the file looks like: the BOM always; the XML
//! declaration and `<meta>` for markup (a file starting with `<`), the connection statements
//! and storage charsets for a SQL dump. Markup inside a dump's data, or `SET NAMES` inside a
//! web page, is content, not a declaration.

use serde::{Deserialize, Serialize};

use super::bom::split_byte_order_mark;
use super::detect::{ByteEvidence, wide_unicode_from_structure};
use super::first_chars::{DEFAULT_WHITESPACE, encoding_from_first_chars};
use super::labels::{KnownEncoding, LabelMeaning, labels_agree};
use super::policy::{
    Declaration, Diagnostic, DiagnosticCode, Gathered, Level, META_SCAN_LIMIT, PolicyOptions,
    bom_declaration, markup_declarations,
};
use super::sql::{SqlDeclaration, looks_like_sql, sql_declarations};
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use crate::format::{count, thousands};

/// How much of the file is read for markup declarations and for the statistical guess: the
/// first mebibyte (the policy's `<meta>` limit). A SQL dump's connection statements are read
/// from its first [`SQL_CONNECTION_SCAN_LIMIT`](super::SQL_CONNECTION_SCAN_LIMIT) bytes.
pub const SURVEY_HEAD_LIMIT: usize = META_SCAN_LIMIT;

/// What the caller's own pass over the whole file found (for `scan`, from its `Counts`:
/// `first_invalid_offset`, `non_ascii_chars`, `double_encoded`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// The offset of the first byte that is not well-formed UTF-8; `None` if the whole file
    /// is valid UTF-8.
    pub first_invalid_offset: Option<u64>,
    /// Non-ASCII characters (UTF-8 lead bytes) in the whole file.
    pub non_ascii_chars: u64,
    /// Double-encoded characters the mojibake scanner counted.
    pub double_encoded: u64,
}

/// What kind of file the head looks like; decides which declarations are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentFormat {
    /// HTML or XML: starts with `<` (after white space, in the BOM's or first characters'
    /// encoding).
    Markup,
    /// A SQL dump (see [`looks_like_sql`]).
    Sql,
    /// Anything else: only a BOM can declare.
    Text,
}

/// What the bytes of the file are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActualBytes {
    /// Whether the whole file is well-formed UTF-8 (from [`FileFacts`]).
    pub valid_utf8: bool,
    /// The offset of the first byte that is not (from [`FileFacts`]).
    pub first_invalid_offset: Option<u64>,
    /// Non-ASCII characters in the whole file (from [`FileFacts`]).
    pub non_ascii_chars: u64,
    /// The encoding a leading byte order mark marks, if there is one.
    pub bom: Option<String>,
    /// What the bytes identify or suggest; `None` for an empty file, and for a UTF-16/32 BOM
    /// before text that does not start with `<`.
    pub detected: Option<ByteEvidence>,
}

/// The pre-migration view of one file; see [`survey`] for its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Survey {
    /// What the file looks like.
    pub format: DocumentFormat,
    /// Declarations of the file's own encoding: BOM, XML declaration, `<meta>`, SQL
    /// connection statements.
    pub declared: Vec<Declaration>,
    /// A SQL dump's database, table and column charsets: how the server stores the text.
    pub storage: Vec<SqlDeclaration>,
    /// What the bytes are.
    pub actual: ActualBytes,
    /// Double-encoded characters (from [`FileFacts`]).
    pub double_encoded: u64,
    /// Disagreements between declared and actual, and other findings.
    pub diagnostics: Vec<Diagnostic>,
}

/// The survey as `scan --json` prints it (its `encoding`): the [`Survey`]'s fields, and for a
/// file that is not UTF-8 what `fix` will do with it, which the caller judges (the survey
/// knows nothing of `fix`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyRecord {
    #[serde(flatten)]
    pub survey: Survey,
    /// What `fix` will do with the file (`windows-1252 (guess, 0.93): use --transcode`);
    /// absent for a UTF-8 file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// What the bytes are, for comparing.
#[derive(Debug, Clone, Copy)]
enum Actual {
    /// UTF-16/32, by the BOM or the first characters.
    Wide(KnownEncoding),
    /// Valid UTF-8 with non-ASCII characters.
    Utf8,
    /// Valid UTF-8 without any: ASCII (or empty).
    Ascii,
    /// Not UTF-8; perhaps guessed.
    NotUtf8 {
        invalid_at: u64,
        guess: Option<KnownEncoding>,
    },
}

/// Surveys one file: `bytes` is all of it (typically memory-mapped), `facts` what a full pass
/// already found. Reads at most [`SURVEY_HEAD_LIMIT`] bytes from the start and as much again
/// from the line of the first invalid UTF-8 byte, except that a SQL dump is walked line by
/// line for its `CREATE` statements. Decodes and copies nothing else.
///
/// # JSON
///
/// Serialises (`serde_json::to_value`) to one object:
///
/// ```json
/// {
///   "format": "sql",
///   "declared": [
///     {"source": "sql", "label": "latin1", "encoding": "windows-1252",
///      "statement": "set-names", "line": 12, "offset": 431}
///   ],
///   "storage": [
///     {"statement": "table-default", "line": 30, "offset": 1210, "label": "latin1",
///      "encoding": "windows-1252", "collation": null, "table": "countries", "column": null}
///   ],
///   "actual": {
///     "valid_utf8": true, "first_invalid_offset": null, "non_ascii_chars": 51234,
///     "bom": null,
///     "detected": {"encoding": "UTF-8", "method": "utf8-validation", "guess": false,
///                  "evidence": "valid UTF-8 with 51234 non-ASCII characters"}
///   },
///   "double_encoded": 1234,
///   "diagnostics": [
///     {"level": "warning", "code": "conflict",
///      "message": "declares latin1 (SET NAMES, line 12) but is UTF-8 holding 1,234 double-encoded characters"}
///   ]
/// }
/// ```
///
/// - `format`: `markup`, `sql` or `text`.
/// - `declared[]`: `source` is `bom`, `xml`, `meta` or `sql`; `label` as written; `encoding`
///   the canonical name or `null` (unknown label, or `binary`/`SQL_ASCII`); `sql` entries add
///   `statement` (`set-names`, `set-character-set`, `set-character-set-client`,
///   `set-client-encoding`), `line` (from 1) and `offset` (bytes, of the name).
/// - `storage[]` (empty unless `sql`): `statement` is `database-default`, `database-encoding`,
///   `table-default` or `column`, with `line`, `offset`, `label`, `encoding`, `collation`,
///   `table` (or database) and `column` (for `column`), each `null` when absent.
/// - `actual.detected`: `null`, or `encoding` (`null` for ASCII), `method` (`first-chars`,
///   `zero-bytes`, `utf8-validation`, `ascii`, `statistical`), `guess`, `confidence` (0 to 1, only for
///   `statistical`) and `evidence` (text).
/// - `diagnostics[]`: `level` (`error`, `warning`, `notice`), `code` and `message`. Codes:
///   `conflict` (warning: a declaration the bytes contradict), `double-encoded` (warning:
///   double-encoded characters that no conflict already mentions), `guess-differs` (notice: a
///   legacy declaration the statistical guess does not match), `unknown-label` (warning),
///   `no-encoding` (notice: `binary`/`SQL_ASCII`), `not-declared` (notice: markup or a dump
///   that declares nothing).
pub fn survey(bytes: &[u8], facts: &FileFacts) -> Survey {
    SurveyBasis::read(bytes, facts.first_invalid_offset).finish(facts)
}

/// What [`survey`] reads off the file's bytes, before the counts of a pass are known: its
/// format, declarations and storage charsets, its BOM, UTF-16/32 by its first characters, and
/// the statistical guess from the line of its first invalid byte. [`SurveyBasis::finish`] makes
/// the survey of it and the [`FileFacts`].
///
/// The ranges of a file (`scan --range`) read the same head, so their bases are the file's, but
/// for the guess, which each reads from the line of its own first invalid byte. `undouble
/// merge` keeps the basis of the range whose first invalid byte is the file's, finishes it with
/// the summed facts, and so writes the survey one scan of the whole file writes, word for word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyBasis {
    pub format: DocumentFormat,
    /// The declarations of the file's own encoding, in order.
    pub declared: Vec<BasisDeclaration>,
    /// A SQL dump's database, table and column charsets.
    pub storage: Vec<SqlDeclaration>,
    /// The encoding a leading byte order mark marks, if there is one.
    pub bom: Option<String>,
    /// UTF-16 or UTF-32, by the BOM or the first characters.
    pub wide: Option<WideBasis>,
    /// How many bytes were read (what the evidence of an ASCII file counts).
    pub bytes: u64,
    /// The guess read from the line of the first invalid byte, when there is one.
    pub not_utf8: Option<NotUtf8Basis>,
}

/// A declaration of a [`SurveyBasis`], and whether its label declares that the bytes are no
/// encoding (MySQL `binary`, PostgreSQL `SQL_ASCII`) rather than one this crate does not know:
/// neither names an encoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BasisDeclaration {
    #[serde(flatten)]
    pub declaration: Declaration,
    pub no_encoding: bool,
}

/// UTF-16 or UTF-32 in a [`SurveyBasis`]: the encoding's name, and what showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WideBasis {
    pub encoding: String,
    pub evidence: Option<ByteEvidence>,
}

/// The statistical guess of a [`SurveyBasis`]: the first invalid byte it was read for, what
/// its line suggests, and the encoding guessed, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotUtf8Basis {
    pub invalid_at: u64,
    pub evidence: ByteEvidence,
    pub guess: Option<String>,
}

impl BasisDeclaration {
    fn of(gathered: Gathered) -> BasisDeclaration {
        BasisDeclaration {
            no_encoding: gathered.meaning == LabelMeaning::Uninterpreted,
            declaration: gathered.declaration,
        }
    }

    /// The declaration with its meaning again: the encoding it names is found again by name.
    fn gathered(&self) -> Gathered {
        let encoding = self.declaration.encoding.as_deref();
        let meaning = match (
            encoding.and_then(KnownEncoding::for_label),
            self.no_encoding,
        ) {
            (Some(encoding), _) => LabelMeaning::Encoding(encoding),
            (None, true) => LabelMeaning::Uninterpreted,
            (None, false) => LabelMeaning::Unknown,
        };
        Gathered {
            declaration: self.declaration.clone(),
            meaning,
        }
    }
}

impl SurveyBasis {
    /// Reads the basis of the file whose first bytes are `bytes` (all of it, or at least
    /// [`SURVEY_HEAD_LIMIT`]), its first invalid byte at `first_invalid_offset`.
    pub fn read(bytes: &[u8], first_invalid_offset: Option<u64>) -> SurveyBasis {
        let head = bytes.get(..SURVEY_HEAD_LIMIT).unwrap_or(bytes);
        let (bom, head_body) = split_byte_order_mark(head);
        let format = document_format(head, head_body, bom);
        let mut gathered: Vec<Gathered> = bom_declaration(bom).into_iter().collect();
        let mut storage = Vec::new();
        match format {
            DocumentFormat::Markup => {
                gathered.extend(markup_declarations(head, bom, &PolicyOptions::default()));
            }
            DocumentFormat::Sql => {
                let (connection, tables): (Vec<_>, Vec<_>) = sql_declarations(bytes)
                    .into_iter()
                    .partition(|sql| sql.place.kind.is_connection());
                gathered.extend(connection.into_iter().map(Gathered::from_sql));
                storage = tables;
            }
            DocumentFormat::Text => {}
        }
        let wide = bom
            .filter(|bom| bom.is_wide_unicode())
            .or_else(|| wide_unicode_from_structure(head_body))
            .and_then(|wide| KnownEncoding::for_label(wide.name()))
            .map(|wide| WideBasis {
                encoding: wide.name().to_owned(),
                evidence: ByteEvidence::wide_unicode(head_body),
            });
        let not_utf8 = match (&wide, first_invalid_offset) {
            (None, Some(invalid_at)) => Some(guess_from_line(bytes, invalid_at)),
            _ => None,
        };
        SurveyBasis {
            format,
            declared: gathered.into_iter().map(BasisDeclaration::of).collect(),
            storage,
            bom: bom.map(|bom| bom.name().to_owned()),
            wide,
            bytes: bytes.len() as u64,
            not_utf8,
        }
    }

    /// The survey of the file this basis was read of, whose pass found `facts`.
    pub fn finish(&self, facts: &FileFacts) -> Survey {
        let gathered: Vec<Gathered> = self
            .declared
            .iter()
            .map(BasisDeclaration::gathered)
            .collect();
        let (actual, detected) = self.actual(facts);
        let mut diagnostics: Vec<Diagnostic> =
            gathered.iter().filter_map(Gathered::ignored).collect();
        let mut double_encoding_told = false;
        for found in &gathered {
            let LabelMeaning::Encoding(declared) = found.meaning else {
                continue;
            };
            let contradiction = contradiction(&found.declaration, declared, actual, facts);
            if let Some(diagnostic) = contradiction {
                double_encoding_told |= matches!(actual, Actual::Utf8) && facts.double_encoded > 0;
                diagnostics.push(diagnostic);
            } else if let Some(notice) = guess_differs(&found.declaration, declared, actual) {
                diagnostics.push(notice);
            }
        }
        if facts.double_encoded > 0 && !double_encoding_told {
            diagnostics.push(double_encoded(&gathered, &self.storage, actual, facts));
        }
        if gathered.is_empty() && self.format != DocumentFormat::Text {
            diagnostics.push(Diagnostic {
                level: Level::Notice,
                code: DiagnosticCode::NotDeclared,
                message: format!(
                    "nothing declares the encoding; the file {}",
                    is(actual, facts)
                ),
            });
        }
        Survey {
            format: self.format,
            declared: gathered.into_iter().map(|g| g.declaration).collect(),
            storage: self.storage.clone(),
            actual: ActualBytes {
                valid_utf8: facts.first_invalid_offset.is_none(),
                first_invalid_offset: facts.first_invalid_offset,
                non_ascii_chars: facts.non_ascii_chars,
                bom: self.bom.clone(),
                detected,
            },
            double_encoded: facts.double_encoded,
            diagnostics,
        }
    }

    /// What the bytes are, from the BOM, the first characters, the guess and the facts.
    fn actual(&self, facts: &FileFacts) -> (Actual, Option<ByteEvidence>) {
        if let Some(wide) = &self.wide
            && let Some(encoding) = KnownEncoding::for_label(&wide.encoding)
        {
            return (Actual::Wide(encoding), wide.evidence.clone());
        }
        let Some(invalid_at) = facts.first_invalid_offset else {
            return if facts.non_ascii_chars == 0 {
                let evidence = (self.bytes > 0).then(|| ByteEvidence::ascii(self.bytes));
                (Actual::Ascii, evidence)
            } else {
                let evidence = ByteEvidence::utf8(facts.non_ascii_chars, "characters");
                (Actual::Utf8, Some(evidence))
            };
        };
        let (guess, evidence) = match &self.not_utf8 {
            Some(not_utf8) => (
                not_utf8.guess.as_deref().and_then(KnownEncoding::for_label),
                Some(not_utf8.evidence.clone()),
            ),
            None => (None, None),
        };
        (Actual::NotUtf8 { invalid_at, guess }, evidence)
    }
}

/// The statistical guess from the line of the first invalid byte, `invalid_at`, in `bytes`.
fn guess_from_line(bytes: &[u8], invalid_at: u64) -> NotUtf8Basis {
    let invalid = usize::try_from(invalid_at)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    let before = bytes.get(..invalid).unwrap_or_default();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |at| at + 1);
    let sample = bytes.get(line_start..).unwrap_or_default();
    let sample = sample.get(..SURVEY_HEAD_LIMIT).unwrap_or(sample);
    let sampled = format!(
        " in {} from offset {line_start}",
        count(u64::try_from(sample.len()).unwrap_or(u64::MAX), "byte")
    );
    let evidence = ByteEvidence::statistical(&[sample], invalid_at, &sampled);
    let guess = evidence
        .encoding
        .as_deref()
        .and_then(KnownEncoding::for_label)
        .map(|guess| guess.name().to_owned());
    NotUtf8Basis {
        invalid_at,
        evidence,
        guess,
    }
}

fn document_format(head: &[u8], head_body: &[u8], bom: Option<Suspect>) -> DocumentFormat {
    let readings = bom.map_or(DEFAULT_SUSPECTS.to_vec(), |bom| vec![bom]);
    if !encoding_from_first_chars(head_body, &readings, DEFAULT_WHITESPACE).is_empty() {
        DocumentFormat::Markup
    } else if looks_like_sql(head) {
        DocumentFormat::Sql
    } else {
        DocumentFormat::Text
    }
}

/// `is UTF-8 holding 1,234 double-encoded characters`, `is all ASCII`, ...
fn is(actual: Actual, facts: &FileFacts) -> String {
    match actual {
        Actual::Wide(wide) => format!("is {}", wide.name()),
        Actual::Utf8 if facts.double_encoded > 0 => {
            format!("is UTF-8 holding {}", double_encoded_characters(facts))
        }
        Actual::Utf8 => "is UTF-8".to_owned(),
        Actual::Ascii => "is all ASCII".to_owned(),
        Actual::NotUtf8 { invalid_at, guess } => {
            let guess = guess
                .map(|guess| format!("; it looks like {}", guess.name()))
                .unwrap_or_default();
            format!("is not UTF-8 (first invalid byte at offset {invalid_at}{guess})")
        }
    }
}

/// `1 double-encoded character`, `1,234 double-encoded characters`.
fn double_encoded_characters(facts: &FileFacts) -> String {
    count(facts.double_encoded, "double-encoded character")
}

/// A `conflict` if the bytes contradict the declaration.
fn contradiction(
    declaration: &Declaration,
    declared: KnownEncoding,
    actual: Actual,
    facts: &FileFacts,
) -> Option<Diagnostic> {
    let utf8 = KnownEncoding::Whatwg(encoding_rs::UTF_8);
    let contradicted = match actual {
        Actual::Wide(wide) => !labels_agree((&declaration.label, declared), (wide.name(), wide)),
        Actual::Utf8 => declared != utf8,
        Actual::Ascii => !declared.is_ascii_compatible(),
        Actual::NotUtf8 { .. } => declared == utf8 || !declared.is_ascii_compatible(),
    };
    contradicted.then(|| Diagnostic {
        level: Level::Warning,
        code: DiagnosticCode::Conflict,
        message: format!(
            "declares {} ({}) but {}",
            declaration.label,
            declaration.whereabouts(),
            is(actual, facts)
        ),
    })
}

/// A `guess-differs` notice if a legacy declaration does not match the statistical guess.
fn guess_differs(
    declaration: &Declaration,
    declared: KnownEncoding,
    actual: Actual,
) -> Option<Diagnostic> {
    let Actual::NotUtf8 {
        guess: Some(guess), ..
    } = actual
    else {
        return None;
    };
    (guess != declared).then(|| Diagnostic {
        level: Level::Notice,
        code: DiagnosticCode::GuessDiffers,
        message: format!(
            "declares {} ({}, {}), but the bytes look like {}",
            declaration.label,
            declaration.whereabouts(),
            declared.name(),
            guess.name()
        ),
    })
}

/// The `double-encoded` warning: the count, what the file declares, and the storage charsets
/// that are not UTF-8 (how UTF-8 bytes usually end up double-encoded: stored through a
/// connection that declared them latin1, then dumped as UTF-8).
fn double_encoded(
    gathered: &[Gathered],
    storage: &[SqlDeclaration],
    actual: Actual,
    facts: &FileFacts,
) -> Diagnostic {
    let utf8 = KnownEncoding::Whatwg(encoding_rs::UTF_8);
    let as_declared = gathered
        .iter()
        .find(|g| g.meaning == LabelMeaning::Encoding(utf8) && matches!(actual, Actual::Utf8))
        .map(|g| format!(" as declared ({})", g.declaration.whereabouts()))
        .unwrap_or_default();
    let storage_part = legacy_storage(storage);
    let file_is = match actual {
        Actual::Utf8 => format!("is UTF-8{as_declared}"),
        other => is(other, facts),
    };
    Diagnostic {
        level: Level::Warning,
        code: DiagnosticCode::DoubleEncoded,
        message: format!(
            "the file {file_is} and holds {}{storage_part}",
            double_encoded_characters(facts)
        ),
    }
}

/// `; 12 storage charsets name latin1, cp1251 (the first: DEFAULT CHARSET, line 30, table t)`
/// for the storage declarations that name an ASCII-compatible encoding other than UTF-8;
/// nothing if none does.
fn legacy_storage(storage: &[SqlDeclaration]) -> String {
    let utf8 = KnownEncoding::Whatwg(encoding_rs::UTF_8);
    let legacy: Vec<&SqlDeclaration> = storage
        .iter()
        .filter(|sql| {
            sql.meaning()
                .encoding()
                .is_some_and(|encoding| encoding != utf8 && encoding.is_ascii_compatible())
        })
        .collect();
    match legacy.first() {
        None => String::new(),
        Some(first) => {
            let mut labels: Vec<String> = Vec::new();
            for sql in &legacy {
                if !labels
                    .iter()
                    .any(|seen| seen.eq_ignore_ascii_case(&sql.label))
                {
                    labels.push(sql.label.clone());
                }
            }
            let table = first
                .table
                .as_ref()
                .map(|table| format!(", table {table}"))
                .unwrap_or_default();
            let column = first
                .column
                .as_ref()
                .map(|column| format!(", column {column}"))
                .unwrap_or_default();
            let labels = labels.join(", ");
            let first_where = format!("{}{table}{column}", first.place);
            match legacy.len() {
                1 => format!("; 1 storage charset names {labels} ({first_where})"),
                n => format!(
                    "; {} storage charsets name {labels} (the first: {first_where})",
                    thousands(n as u64)
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(survey: &Survey) -> Vec<DiagnosticCode> {
        survey.diagnostics.iter().map(|d| d.code).collect()
    }

    const UTF8: FileFacts = FileFacts {
        first_invalid_offset: None,
        non_ascii_chars: 5000,
        double_encoded: 1234,
    };

    fn dump(names: &str) -> String {
        format!(
            "-- MySQL dump 10.13\n\n/*!40101 SET NAMES {names} */;\n\n\
             CREATE TABLE `t` (\n  `a` text\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n\
             CREATE TABLE `u` (`b` text) DEFAULT CHARSET=latin1;\n\
             INSERT INTO `t` VALUES ('caf\u{C3}\u{A9}');\n"
        )
    }

    #[test]
    fn a_latin1_dump_that_is_utf8() {
        let found = survey(dump("latin1").as_bytes(), &UTF8);
        assert_eq!(found.format, DocumentFormat::Sql);
        assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
        assert_eq!(
            found.diagnostics[0].message,
            "declares latin1 (SET NAMES, line 3) but is UTF-8 holding 1,234 double-encoded \
             characters"
        );
        assert_eq!(found.storage.len(), 2);
        assert_eq!(found.storage[0].table.as_deref(), Some("t"));
    }

    #[test]
    fn a_utf8_dump_of_latin1_tables_holding_double_encoding() {
        let found = survey(dump("utf8mb4").as_bytes(), &UTF8);
        assert_eq!(codes(&found), [DiagnosticCode::DoubleEncoded]);
        assert_eq!(
            found.diagnostics[0].message,
            "the file is UTF-8 as declared (SET NAMES, line 3) and holds 1,234 double-encoded \
             characters; 2 storage charsets name latin1 (the first: DEFAULT CHARSET, line 7, table t)"
        );
        let clean = FileFacts {
            double_encoded: 0,
            ..UTF8
        };
        assert!(
            survey(dump("utf8mb4").as_bytes(), &clean)
                .diagnostics
                .is_empty()
        );
    }

    #[test]
    fn a_utf8_declaration_on_legacy_bytes() {
        let bytes = b"SET NAMES utf8mb4;\nINSERT INTO t VALUES ('Stra\xDFe, K\xF6ln');\n";
        let facts = FileFacts {
            first_invalid_offset: Some(46),
            non_ascii_chars: 0,
            double_encoded: 0,
        };
        assert_eq!(bytes.get(46), Some(&0xDF));
        let found = survey(bytes, &facts);
        assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
        assert_eq!(
            found.diagnostics[0].message,
            "declares utf8mb4 (SET NAMES, line 1) but is not UTF-8 (first invalid byte at offset \
             46; it looks like windows-1252)"
        );
        let detected = found.actual.detected.as_ref();
        assert_eq!(
            detected.map(|d| (d.guess, d.encoding.as_deref())),
            Some((true, Some("windows-1252")))
        );
        assert!(detected.is_some_and(|d| d.evidence.contains("from offset 19")));
    }

    #[test]
    fn markup_is_read_for_meta_but_text_is_not() {
        let page = "<html><head><meta charset=iso-8859-1></head><p>\u{E4}".as_bytes();
        let facts = FileFacts {
            first_invalid_offset: None,
            non_ascii_chars: 1,
            double_encoded: 0,
        };
        let found = survey(page, &facts);
        assert_eq!(found.format, DocumentFormat::Markup);
        assert_eq!(
            found.diagnostics.first().map(|d| d.message.as_str()),
            Some("declares iso-8859-1 (<meta>) but is UTF-8")
        );
        let text = "notes: <meta charset=iso-8859-1> SET NAMES latin1\n\u{E4}".as_bytes();
        let found = survey(text, &facts);
        assert_eq!(found.format, DocumentFormat::Text);
        assert!(found.declared.is_empty() && found.diagnostics.is_empty());
    }

    #[test]
    fn a_utf16_bom_file() {
        let bytes: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Hello".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let found = survey(&bytes, &FileFacts::default());
        assert_eq!(found.format, DocumentFormat::Text);
        assert_eq!(found.actual.bom.as_deref(), Some("UTF-16LE"));
        assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    }

    #[test]
    fn an_undeclared_dump_and_sql_ascii() {
        let facts = FileFacts {
            non_ascii_chars: 3,
            ..FileFacts::default()
        };
        let found = survey(b"INSERT INTO t VALUES (1);\n", &facts);
        assert_eq!(codes(&found), [DiagnosticCode::NotDeclared]);
        let found = survey(b"SET client_encoding = 'SQL_ASCII';\n", &facts);
        assert_eq!(codes(&found), [DiagnosticCode::NoEncoding]);
    }

    #[test]
    fn serialises_as_documented() {
        let found = survey(dump("latin1").as_bytes(), &UTF8);
        let json = serde_json::to_value(&found).unwrap_or_default();
        assert_eq!(json["format"], "sql");
        assert_eq!(json["declared"][0]["source"], "sql");
        assert_eq!(json["declared"][0]["statement"], "set-names");
        assert_eq!(json["declared"][0]["line"], 3);
        assert_eq!(json["declared"][0]["encoding"], "windows-1252");
        assert_eq!(json["storage"][0]["statement"], "table-default");
        assert_eq!(json["storage"][0]["table"], "t");
        assert_eq!(json["storage"][0]["column"], serde_json::Value::Null);
        assert_eq!(json["actual"]["valid_utf8"], true);
        assert_eq!(json["actual"]["bom"], serde_json::Value::Null);
        assert_eq!(json["actual"]["detected"]["method"], "utf8-validation");
        assert_eq!(json["double_encoded"], 1234);
        assert_eq!(json["diagnostics"][0]["code"], "conflict");
        assert_eq!(json["diagnostics"][0]["level"], "warning");
    }

    /// The inputs of the tests above, and more: each with the facts of a pass.
    fn surveyed() -> Vec<(Vec<u8>, FileFacts)> {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Hello".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let legacy = b"SET NAMES utf8mb4;\nINSERT INTO t VALUES ('Stra\xDFe, K\xF6ln');\n".to_vec();
        let invalid = FileFacts {
            first_invalid_offset: Some(46),
            ..FileFacts::default()
        };
        vec![
            (dump("latin1").into_bytes(), UTF8),
            (dump("utf8mb4").into_bytes(), UTF8),
            (legacy, invalid),
            (
                "<html><head><meta charset=iso-8859-1></head><p>\u{E4}".into(),
                FileFacts {
                    non_ascii_chars: 1,
                    ..FileFacts::default()
                },
            ),
            (utf16, FileFacts::default()),
            (b"SET client_encoding = 'SQL_ASCII';\n".to_vec(), UTF8),
            (b"SET NAMES klingon;\n".to_vec(), UTF8),
            (b"just ascii\n".to_vec(), FileFacts::default()),
            (Vec::new(), FileFacts::default()),
        ]
    }

    #[test]
    fn a_basis_read_back_from_json_finishes_the_same_survey() {
        for (bytes, facts) in surveyed() {
            let basis = SurveyBasis::read(&bytes, facts.first_invalid_offset);
            let json = serde_json::to_string(&basis).unwrap_or_default();
            let back: Result<SurveyBasis, _> = serde_json::from_str(&json);
            // As JSON: a guess's level of confidence is not written (its score is).
            let again = back.as_ref().map(serde_json::to_string);
            assert!(
                again.is_ok_and(|again| again.is_ok_and(|a| a == json)),
                "{json}"
            );
            // Finished with other facts, as merge finishes it with the sums of the ranges.
            let more = FileFacts {
                non_ascii_chars: facts.non_ascii_chars * 3 + 1,
                double_encoded: facts.double_encoded * 2 + 5,
                ..facts
            };
            for facts in [facts, more] {
                let whole = serde_json::to_value(survey(&bytes, &facts)).unwrap_or_default();
                let finished = back.as_ref().map(|back| back.finish(&facts));
                let finished = serde_json::to_value(finished.ok()).unwrap_or_default();
                assert_eq!(finished, whole, "{}", String::from_utf8_lossy(&bytes));
            }
        }
    }

    #[test]
    fn every_encoding_a_basis_names_is_found_again_by_its_name() {
        let whatwg = [
            encoding_rs::UTF_8,
            encoding_rs::UTF_16LE,
            encoding_rs::UTF_16BE,
            encoding_rs::IBM866,
            encoding_rs::ISO_8859_2,
            encoding_rs::ISO_8859_8_I,
            encoding_rs::KOI8_U,
            encoding_rs::MACINTOSH,
            encoding_rs::WINDOWS_874,
            encoding_rs::WINDOWS_1250,
            encoding_rs::WINDOWS_1252,
            encoding_rs::WINDOWS_1258,
            encoding_rs::X_MAC_CYRILLIC,
            encoding_rs::GBK,
            encoding_rs::GB18030,
            encoding_rs::BIG5,
            encoding_rs::EUC_JP,
            encoding_rs::ISO_2022_JP,
            encoding_rs::SHIFT_JIS,
            encoding_rs::EUC_KR,
            encoding_rs::X_USER_DEFINED,
        ];
        let known = whatwg
            .into_iter()
            .map(KnownEncoding::Whatwg)
            .chain([KnownEncoding::Utf32Le, KnownEncoding::Utf32Be])
            .chain(
                [
                    super::super::oem::OemCodePage::Ibm855,
                    super::super::oem::OemCodePage::Cp737,
                ]
                .map(KnownEncoding::Oem),
            );
        for encoding in known {
            assert_eq!(
                KnownEncoding::for_label(encoding.name()),
                Some(encoding),
                "{}",
                encoding.name()
            );
        }
    }
}
