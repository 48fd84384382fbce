//! The HTML5 way: BOM, then the WHATWG `<meta>` prescan of the first 1024 bytes, then
//! windows-1252.
//!
//! This is what a browser does before it parses (HTML Standard, "determining the character
//! encoding", steps for BOM sniffing and "prescan a byte stream to determine its encoding").
//! It differs from the HTML::Encoding port on purpose: it works on bytes, looks at 1024 of
//! them only, gives up if the bytes run out mid-tag, ignores `script`/`style` boundaries,
//! understands `<meta charset>` and `<meta http-equiv content>` with the standard's exact
//! attribute rules, and maps UTF-16 labels to UTF-8 (a `<meta>` readable as ASCII cannot be
//! UTF-16). It exists so that the html5lib encoding tests can measure us against browsers, and
//! so callers can ask "what would a browser pick?".

use encoding_rs::Encoding;
use rustc_hash::FxHashSet as HashSet;

use super::source::Source;

/// How many bytes the prescan looks at.
pub(crate) const PRESCAN_LIMIT: usize = 1024;

/// A browser's choice of encoding before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Html5Encoding {
    /// The encoding chosen.
    pub encoding: &'static Encoding,
    /// `Bom`, `Meta` or `Default`.
    pub source: Source,
}

/// BOM sniffing, then [`prescan_meta`] over the first `PRESCAN_LIMIT` bytes, then the
/// windows-1252 default.
pub fn encoding_from_html5_prescan(document: &[u8]) -> Html5Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(document) {
        return Html5Encoding {
            encoding,
            source: Source::Bom,
        };
    }
    let head = document.get(..PRESCAN_LIMIT).unwrap_or(document);
    match prescan_meta(head) {
        Some(encoding) => Html5Encoding {
            encoding,
            source: Source::Meta,
        },
        None => Html5Encoding {
            encoding: encoding_rs::WINDOWS_1252,
            source: Source::Default,
        },
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, 0x09 | 0x0A | 0x0C | 0x0D | 0x20)
}

/// The WHATWG prescan over all of `bytes`; `None` if it finds nothing or runs out of bytes.
pub fn prescan_meta(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while let Some(rest) = bytes.get(pos..).filter(|rest| !rest.is_empty()) {
        if rest.starts_with(b"<!--") {
            // The '-->' may share its dashes with the '<!--'.
            pos += 2 + memchr::memmem::find(rest.get(2..)?, b"-->")? + 3;
            continue;
        }
        if is_meta_start(rest) {
            pos += b"<meta ".len();
            if let Some(encoding) = meta_element(bytes, &mut pos)? {
                return Some(encoding);
            }
        } else if starts_tag(rest) {
            pos += rest.iter().position(|&b| is_space(b) || b == b'>')?;
            while get_attribute(bytes, &mut pos)?.is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos += memchr::memchr(b'>', rest)?;
        }
        pos += 1;
    }
    None
}

/// `<meta` (any case) followed by white space or `/`.
fn is_meta_start(bytes: &[u8]) -> bool {
    bytes
        .get(..5)
        .is_some_and(|tag| tag.eq_ignore_ascii_case(b"<meta"))
        && bytes.get(5).is_some_and(|&b| is_space(b) || b == b'/')
}

/// `<` or `</` followed by an ASCII letter.
fn starts_tag(bytes: &[u8]) -> bool {
    let name = bytes
        .strip_prefix(b"</")
        .or_else(|| bytes.strip_prefix(b"<"));
    bytes.first() == Some(&b'<')
        && name
            .and_then(|n| n.first())
            .is_some_and(u8::is_ascii_alphabetic)
}

/// The attributes of one `<meta>`: `Some(Some(encoding))` if it declares a usable one,
/// `Some(None)` if not, `None` if the bytes ran out.
fn meta_element(bytes: &[u8], pos: &mut usize) -> Option<Option<&'static Encoding>> {
    // A set, not a list: a tag of many attributes is read in linear time.
    let mut seen: HashSet<Vec<u8>> = HashSet::default();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<Option<&'static Encoding>> = None;
    while let Some((name, value)) = get_attribute(bytes, pos)? {
        if !seen.insert(name.clone()) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if charset.is_none() => {
                if let Some(encoding) = encoding_from_meta_content(&value) {
                    charset = Some(Some(encoding));
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Some(Encoding::for_label(&value));
                need_pragma = Some(false);
            }
            _ => {}
        }
    }
    let usable = match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        Some(_) => charset.flatten(),
    };
    Some(usable.map(|encoding| {
        if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
            encoding_rs::UTF_8
        } else if encoding == encoding_rs::X_USER_DEFINED {
            encoding_rs::WINDOWS_1252
        } else {
            encoding
        }
    }))
}

/// The standard's "get an attribute": `Some(Some((name, value)))` with ASCII letters
/// lowercased, `Some(None)` at a `>`, `None` if the bytes ran out.
fn get_attribute(bytes: &[u8], pos: &mut usize) -> Option<Option<(Vec<u8>, Vec<u8>)>> {
    let byte_at = |at: usize| bytes.get(at).copied();
    while is_space(byte_at(*pos)?) || byte_at(*pos)? == b'/' {
        *pos += 1;
    }
    if byte_at(*pos)? == b'>' {
        return Some(None);
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let byte = byte_at(*pos)?;
        if byte == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_space(byte) {
            while is_space(byte_at(*pos)?) {
                *pos += 1;
            }
            if byte_at(*pos)? != b'=' {
                return Some(Some((name, value)));
            }
            *pos += 1;
            break;
        }
        if byte == b'/' || byte == b'>' {
            return Some(Some((name, value)));
        }
        name.push(byte.to_ascii_lowercase());
        *pos += 1;
    }
    while is_space(byte_at(*pos)?) {
        *pos += 1;
    }
    let first = byte_at(*pos)?;
    if first == b'"' || first == b'\'' {
        loop {
            *pos += 1;
            let byte = byte_at(*pos)?;
            if byte == first {
                *pos += 1;
                return Some(Some((name, value)));
            }
            value.push(byte.to_ascii_lowercase());
        }
    }
    if first == b'>' {
        return Some(Some((name, value)));
    }
    loop {
        let byte = byte_at(*pos)?;
        if is_space(byte) || byte == b'>' {
            return Some(Some((name, value)));
        }
        value.push(byte.to_ascii_lowercase());
        *pos += 1;
    }
}

/// The standard's "extract a character encoding from a meta element" for a `content` value.
pub fn encoding_from_meta_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    loop {
        let found = content
            .get(pos..)?
            .windows(7)
            .position(|window| window.eq_ignore_ascii_case(b"charset"))?;
        pos += found + 7;
        pos += count_spaces(content.get(pos..)?);
        if content.get(pos) != Some(&b'=') {
            continue;
        }
        pos += 1;
        pos += count_spaces(content.get(pos..)?);
        let rest = content.get(pos..)?;
        let (&first, after_first) = rest.split_first()?;
        if first == b'"' || first == b'\'' {
            let end = memchr::memchr(first, after_first)?;
            return Encoding::for_label(after_first.get(..end)?);
        }
        let end = rest
            .iter()
            .position(|&b| is_space(b) || b == b';')
            .unwrap_or(rest.len());
        return Encoding::for_label(rest.get(..end)?);
    }
}

fn count_spaces(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_space(b)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(document: &[u8]) -> (&'static str, Source) {
        let found = encoding_from_html5_prescan(document);
        (found.encoding.name(), found.source)
    }

    #[test]
    fn bom_then_meta_then_default() {
        assert_eq!(sniff(b"\xFE\xFF\0<"), ("UTF-16BE", Source::Bom));
        assert_eq!(sniff(b"<meta charset=koi8-r>"), ("KOI8-R", Source::Meta));
        assert_eq!(sniff(b"<p>hello"), ("windows-1252", Source::Default));
    }

    #[test]
    fn pragma_is_needed_for_content() {
        assert_eq!(
            prescan_meta(b"<meta content='text/html; charset=koi8-r'>"),
            None
        );
        assert_eq!(
            prescan_meta(b"<meta content='text/html; charset=koi8-r' http-equiv=content-type>"),
            Some(encoding_rs::KOI8_R)
        );
    }

    #[test]
    fn utf16_labels_become_utf8() {
        assert_eq!(
            prescan_meta(b"<meta charset=utf-16be>"),
            Some(encoding_rs::UTF_8)
        );
        assert_eq!(
            prescan_meta(b"<meta charset=x-user-defined>"),
            Some(encoding_rs::WINDOWS_1252)
        );
    }

    #[test]
    fn running_out_of_bytes_gives_up() {
        assert_eq!(prescan_meta(b"<meta charset=koi8-r"), None);
        assert_eq!(prescan_meta(b"<!-- <meta charset=koi8-r>"), None);
        assert_eq!(prescan_meta(b"<"), None);
    }

    #[test]
    fn only_the_first_1024_bytes_count() {
        let mut late = vec![b' '; PRESCAN_LIMIT];
        late.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(sniff(&late), ("windows-1252", Source::Default));
    }

    #[test]
    fn content_extraction() {
        let get = |content: &[u8]| encoding_from_meta_content(content).map(Encoding::name);
        assert_eq!(get(b"text/html; charset = 'koi8-r'"), Some("KOI8-R"));
        assert_eq!(get(b"charsetcharset=koi8-r;x"), Some("KOI8-R"));
        assert_eq!(get(b"text/html; charset='koi8-r"), None);
        assert_eq!(get(b"text/html"), None);
    }
}
