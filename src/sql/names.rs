//! What the character set names of each dialect mean, as the WHATWG label of the encoding
//! that decodes alike: tables, so that they can be checked against the servers' own lists.

use super::SqlDialect;

/// MySQL/MariaDB character sets (`SHOW CHARACTER SET`) and the WHATWG label that decodes alike;
/// `None` is `binary`. Left out, so unknown: `armscii8`, `cp850`, `cp852`, `dec8`, `geostd8`,
/// `hp8`, `keybcs2`, `macce`, `swe7`, which no WHATWG encoding matches.
pub(crate) const MYSQL_CHARSETS: &[(&str, Option<&str>)] = &[
    ("ascii", Some("us-ascii")),
    ("big5", Some("big5")),
    ("binary", None),
    ("cp1250", Some("windows-1250")),
    ("cp1251", Some("windows-1251")),
    ("cp1256", Some("windows-1256")),
    ("cp1257", Some("windows-1257")),
    ("cp866", Some("ibm866")),
    ("cp932", Some("shift_jis")),
    ("eucjpms", Some("euc-jp")),
    ("euckr", Some("euc-kr")),
    ("gb18030", Some("gb18030")),
    ("gb2312", Some("gbk")),
    ("gbk", Some("gbk")),
    ("greek", Some("iso-8859-7")),
    ("hebrew", Some("iso-8859-8")),
    ("koi8r", Some("koi8-r")),
    ("koi8u", Some("koi8-u")),
    // MySQL's latin1 is windows-1252 with 0x81, 0x8D, 0x8F, 0x90 and 0x9D as C1 controls:
    // exactly the WHATWG windows-1252 decoder.
    ("latin1", Some("windows-1252")),
    ("latin2", Some("iso-8859-2")),
    ("latin5", Some("iso-8859-9")),
    ("latin7", Some("iso-8859-13")),
    ("macroman", Some("macintosh")),
    ("sjis", Some("shift_jis")),
    ("tis620", Some("windows-874")),
    ("ucs2", Some("utf-16be")),
    ("ujis", Some("euc-jp")),
    ("utf16", Some("utf-16be")),
    ("utf16le", Some("utf-16le")),
    ("utf32", Some("utf-32be")),
    ("utf8", Some("utf-8")),
    ("utf8mb3", Some("utf-8")),
    ("utf8mb4", Some("utf-8")),
];

/// PostgreSQL encodings and aliases (`encnames.c`), in PostgreSQL's normal form (lower case,
/// letters and digits only; `windowsNNN` is first shortened to `winNNN`), and the WHATWG label
/// that decodes alike; `None` is `SQL_ASCII`. Left out, so unknown: `EUC_TW`, `EUC_JIS_2004`,
/// `SHIFT_JIS_2004`, `JOHAB`, `MULE_INTERNAL`.
pub(crate) const POSTGRESQL_ENCODINGS: &[(&str, Option<&str>)] = &[
    ("abc", Some("windows-1258")),
    ("alt", Some("ibm866")),
    ("big5", Some("big5")),
    ("euccn", Some("gbk")),
    ("eucjp", Some("euc-jp")),
    ("euckr", Some("euc-kr")),
    ("gb18030", Some("gb18030")),
    ("gbk", Some("gbk")),
    ("iso88591", Some("iso-8859-1")),
    ("iso885910", Some("iso-8859-10")),
    ("iso885913", Some("iso-8859-13")),
    ("iso885914", Some("iso-8859-14")),
    ("iso885915", Some("iso-8859-15")),
    ("iso885916", Some("iso-8859-16")),
    ("iso88592", Some("iso-8859-2")),
    ("iso88593", Some("iso-8859-3")),
    ("iso88594", Some("iso-8859-4")),
    ("iso88595", Some("iso-8859-5")),
    ("iso88596", Some("iso-8859-6")),
    ("iso88597", Some("iso-8859-7")),
    ("iso88598", Some("iso-8859-8")),
    ("iso88599", Some("iso-8859-9")),
    ("koi8", Some("koi8-r")),
    ("koi8r", Some("koi8-r")),
    ("koi8u", Some("koi8-u")),
    // True ISO-8859-1 (0x80-0x9F are C1 controls), unlike MySQL's latin1.
    ("latin1", Some("iso-8859-1")),
    ("latin10", Some("iso-8859-16")),
    ("latin2", Some("iso-8859-2")),
    ("latin3", Some("iso-8859-3")),
    ("latin4", Some("iso-8859-4")),
    ("latin5", Some("iso-8859-9")),
    ("latin6", Some("iso-8859-10")),
    ("latin7", Some("iso-8859-13")),
    ("latin8", Some("iso-8859-14")),
    ("latin9", Some("iso-8859-15")),
    ("mskanji", Some("shift_jis")),
    ("shiftjis", Some("shift_jis")),
    ("sjis", Some("shift_jis")),
    ("sqlascii", None),
    ("tcvn", Some("windows-1258")),
    ("tcvn5712", Some("windows-1258")),
    ("uhc", Some("euc-kr")),
    ("unicode", Some("utf-8")),
    ("utf8", Some("utf-8")),
    ("vscii", Some("windows-1258")),
    ("win", Some("windows-1251")),
    ("win1250", Some("windows-1250")),
    ("win1251", Some("windows-1251")),
    ("win1252", Some("windows-1252")),
    ("win1253", Some("windows-1253")),
    ("win1254", Some("windows-1254")),
    ("win1255", Some("windows-1255")),
    ("win1256", Some("windows-1256")),
    ("win1257", Some("windows-1257")),
    ("win1258", Some("windows-1258")),
    ("win866", Some("ibm866")),
    ("win874", Some("windows-874")),
    ("win932", Some("shift_jis")),
    ("win936", Some("gbk")),
    ("win949", Some("euc-kr")),
    ("win950", Some("big5")),
];

/// What the character set name `name` means in `dialect`: `None` for a name the tables do not
/// know, `Some(None)` for a name of no encoding at all (MySQL's `binary`, PostgreSQL's
/// `SQL_ASCII`), and otherwise the WHATWG label of the encoding that decodes alike. MySQL names
/// are compared in any case; PostgreSQL's are first put in PostgreSQL's normal form (`UTF8`,
/// `utf-8` and `Utf_8` are one name).
pub(crate) fn charset_label(dialect: SqlDialect, name: &str) -> Option<Option<&'static str>> {
    let normal = match dialect {
        SqlDialect::MySql => name.trim().to_ascii_lowercase(),
        SqlDialect::PostgreSql => postgresql_normal_form(name),
    };
    let table = match dialect {
        SqlDialect::MySql => MYSQL_CHARSETS,
        SqlDialect::PostgreSql => POSTGRESQL_ENCODINGS,
    };
    table
        .iter()
        .find(|(known, _)| *known == normal)
        .map(|&(_, target)| target)
}

/// PostgreSQL's normal form of an encoding name: lower case, letters and digits only, and
/// `windowsNNN` shortened to `winNNN`.
fn postgresql_normal_form(name: &str) -> String {
    let normal: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match normal.strip_prefix("windows") {
        Some(number) => format!("win{number}"),
        None => normal,
    }
}
