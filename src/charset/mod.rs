//! Charset detection: which encoding a document declares, where, and what its bytes really are.
//!
//! Two layers. The first is a port of Perl's HTML::Encoding 0.61 (Bjoern Hoehrmann, 2004):
//! small routines that each read one kind of evidence (HTTP header, BOM, XML declaration, the
//! first characters, `<meta>`) and answer with an encoding *and its source*, because "UTF-8
//! from the header" and "UTF-8 from a BOM" survive different things. The second layer,
//! `policy`, is the rule set of validome's HTML validator on top: a fixed priority, every
//! disagreement reported, no silent default. [`prescan`] adds what a browser does (WHATWG), to
//! measure against the html5lib tests and to answer "what would a browser pick?"; `whatwg`
//! makes it a whole policy, with the declarations and conflicts of the first
//! (`detect --whatwg`).
//!
//! Beyond HTML, SQL dumps declare their encoding too: [`sql_declarations`] finds `SET NAMES`,
//! `SET client_encoding` and the table charsets of `CREATE TABLE`, and maps MySQL's and
//! PostgreSQL's names to canonical ones; the policy reads a dump's connection statements as
//! its in-document declaration (source `sql`). [`survey()`] is the pre-migration view `scan`
//! reports: every declaration against what the bytes of a file of any size really are, with
//! the double-encoding count the caller's scanner found.
//!
//! Everything works on bytes (`&[u8]`), never panics on input, and uses no `unsafe`.
//!
//! # Perl names and their Rust counterparts
//!
//! | HTML::Encoding | here |
//! |---|---|
//! | `encoding_from_content_type($ct)` | [`encoding_from_content_type`]`(&[u8]) -> Option<String>`
//! |
//! | `HTTP::Headers::Util::split_header_words` (first component) | [`first_header_component`] |
//! | `encoding_from_byte_order_mark($octets, encodings => ...)` |
//! [`encoding_from_byte_order_mark`]`(&[u8], &[Suspect]) -> Vec<Suspect>` |
//! | `encoding_from_xml_declaration($decl)` | [`encoding_from_xml_declaration`]`(&str) ->
//! Option<String>` |
//! | `xml_declaration_from_octets($octets, ...)` | [`xml_declaration_from_octets`]`(&[u8],
//! &[Suspect]) -> Vec<String>` |
//! | `encoding_from_first_chars($octets, whitespace => ...)` |
//! [`encoding_from_first_chars`]`(&[u8], &[Suspect], &[char]) -> Vec<Suspect>` |
//! | `encoding_from_meta_element($octets, $encname)` | [`encoding_from_meta_element`]`(&[u8],
//! Suspect) -> Vec<String>` |
//! | `encoding_from_xml_document($octets, ...)` | [`encoding_from_xml_document`]`(&[u8],
//! &[Suspect]) -> Option<SourcedEncoding>` |
//! | `encoding_from_html_document($octets, xhtml => ...)` | [`encoding_from_html_document`]`(&[u8],
//! &HtmlOptions) -> Option<SourcedEncoding>` |
//! | `encoding_from_http_message($message, %options)` |
//! [`encoding_from_http_message`]`(&HttpMessage, &HttpOptions) -> Option<SourcedEncoding>` |
//! | `HTTP::Response->parse($raw)` | [`HttpMessage::parse`] |
//! | `$message->header('Content-Type')` / `->content_type` | [`HttpMessage::header`] /
//! [`HttpMessage::media_type`] |
//! | `$HTML::Encoding::DEFAULT_ENCODINGS` | [`DEFAULT_SUSPECTS`] |
//! | an Encode encoding name | [`Suspect`]: `ISO-8859-1` → `Iso8859_1`, `UTF-8` → `Utf8`,
//! `UTF-16LE`/`BE` → `Utf16Le`/`Utf16Be`, `UTF-32LE`/`BE` → `Utf32Le`/`Utf32Be`, `UTF-7` → `Utf7`,
//! `UTF-EBCDIC` → `UtfEbcdic`, `cp37`/`cp500`/`cp1047` → `Ebcdic(..)`, others →
//! `Whatwg(&Encoding)`; [`Suspect::from_name`] parses them |
//! | `%MAP`, `_get_character_map` | [`Suspect::encode_char`], `Suspect::byte_order_mark` |
//! | `decode(..., FB_CROAK)` / `decode(..., FB_QUIET)` | [`Suspect::decode_strict`] /
//! [`Suspect::decode_prefix`] |
//! | list context `(source => [encodings])` | [`SourcedEncoding`] (`source`, `encoding`,
//! `alternatives`) |
//! | scalar context | the first item / [`SourcedEncoding::encoding`] |
//! | the sources `protocol bom xml meta default protocol_default` | [`Source`] (plus `detected`,
//! `assumed` for the policy) |
//! | options `is_html is_xml is_text_xml html_default xml_default text_xml_default xhtml default` |
//! [`HttpOptions`] fields of the same names |
//!
//! # Where we differ from the Perl module, on purpose
//!
//! - Ties (equal BOM or match length, equal counts) come out in the order of the suspects
//!   list instead of Perl's random hash order.
//! - `encoding_from_meta_element` also reads HTML5 `<meta charset=...>`.
//! - Backslashes are deleted from unquoted `charset` values too, as the 0.61 code and its test
//!   suite do; the documentation's table row `utf\-8` → `utf\-8` says otherwise.
//! - `encoding_from_xml_declaration` follows the documentation where the 0.61 code does not:
//!   `<?xml-stylesheet` is not a declaration; the leftmost `encoding=` wins, whatever its
//!   quotes.
//! - `xml_declaration_from_octets` decodes through the whole `>` (0.61 cuts after its first
//!   byte, half a UTF-16 code unit).
//! - `encoding_from_html_document` lists a `<meta>` answer once even if several suspects read
//!   the same element.
//! - `default: false` in [`HttpOptions`] really switches the default off (0.61 tests
//!   `defined`, so a false value still gave the default).
//! - Input the Perl header splitter dies on (`text/html; =`) is skipped over instead.

mod bom;
mod content_type;
mod detect;
mod ebcdic;
mod first_chars;
mod guess;
mod html;
mod html_tags;
mod http;
mod http_message;
mod labels;
mod meta;
mod oem;
#[rustfmt::skip]
mod oem_tables;
pub(crate) mod policy;
pub mod prescan;
#[rustfmt::skip]
mod guess_tables;
mod ranking;
mod source;
mod sql;
mod survey;
mod suspect;
mod utf7;
pub(crate) mod whatwg;
mod xml;
mod zero_bytes;

pub use crate::sql::{MAX_STATEMENT_BYTES, SqlDialect};
pub use bom::{byte_order_mark_length, encoding_from_byte_order_mark};
pub use content_type::{HeaderParameter, encoding_from_content_type, first_header_component};
pub use detect::{
    ByteEvidence, CONFIDENT_NON_ASCII_BYTES, Confidence, DetectionMethod, Score, detect_from_bytes,
};
pub use ebcdic::EbcdicCodePage;
pub use first_chars::{DEFAULT_WHITESPACE, encoding_from_first_chars};
pub use guess::{GuessFeatures, guess_features};
pub use html::{HtmlOptions, encoding_from_html_document};
pub use http::{
    HttpOptions, encoding_from_http_message, is_html_media_type, is_text_xml_media_type,
    is_xml_media_type,
};
pub use http_message::{HttpHeader, HttpMessage};
pub use labels::{KnownEncoding, LabelMeaning, labels_agree};
pub use meta::encoding_from_meta_element;
pub use oem::OemCodePage;
pub use policy::{
    ASCII, DEFAULT_MIN_CONFIDENCE, Declaration, Determination, Diagnostic, DiagnosticCode, Level,
    PolicyOptions, determine, determine_http_message,
};
pub use prescan::{Html5Encoding, encoding_from_html5_prescan, prescan_meta};
pub use source::{Source, SourcedEncoding};
pub use sql::{
    SQL_CONNECTION_SCAN_LIMIT, SqlDeclaration, SqlDeclarationKind, SqlPlace, looks_like_sql,
    mysql_charset, postgresql_encoding, sql_charset, sql_declarations,
};
pub use survey::{
    ActualBytes, BasisDeclaration, DocumentFormat, FileFacts, NotUtf8Basis, SURVEY_HEAD_LIMIT,
    Survey, SurveyBasis, SurveyRecord, WideBasis, survey,
};
pub use suspect::{DEFAULT_SUSPECTS, Decoded, Suspect};
pub use whatwg::determine_whatwg;
pub use xml::{
    encoding_from_xml_declaration, encoding_from_xml_declarations, encoding_from_xml_document,
    xml_declaration_from_octets,
};
