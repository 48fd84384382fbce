//! A small tag scanner in the manner of HTML::Parser, for `encoding_from_meta_element`.
//!
//! The Perl module feeds the decoded document to HTML::Parser and listens for `<meta>` start
//! tags and the `</head>` end tag. Only that much of HTML::Parser is reproduced: comments,
//! declarations (`<!...>`) and processing instructions (`<?...>`) are skipped; the content of
//! the elements HTML::Parser reads literally (`script`, `style`, `xmp`, `title`, `textarea`,
//! `plaintext`) is skipped so a `<meta>` inside a script string is not taken for real;
//! attribute names are lowercased and values have the common character references resolved.
//! A tag that is still open at the end of the text is not reported: the text ran out first.
//!
//! This is deliberately not the WHATWG byte prescan (that lives in `prescan.rs`): the port
//! reads characters decoded with a suspected encoding and looks as far as `</head>`.

use rustc_hash::FxHashSet as HashSet;

/// A tag the scanner reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tag {
    /// A start tag with its lowercased name and its attributes in document order (the first
    /// of duplicate attributes wins).
    Start {
        name: String,
        attributes: Vec<(String, String)>,
    },
    /// An end tag with its lowercased name.
    End { name: String },
}

/// Elements whose content HTML::Parser does not parse as markup.
const LITERAL_ELEMENTS: &[&str] = &["script", "style", "xmp", "title", "textarea", "plaintext"];

/// Iterates over the tags of `text` in document order.
pub(crate) fn tags(text: &str) -> Tags<'_> {
    Tags { text, pos: 0 }
}

/// The iterator returned by [`tags`].
pub(crate) struct Tags<'a> {
    text: &'a str,
    pos: usize,
}

fn is_html_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

impl Iterator for Tags<'_> {
    type Item = Tag;

    fn next(&mut self) -> Option<Tag> {
        let bytes = self.text.as_bytes();
        loop {
            let open = self.pos + memchr::memchr(b'<', bytes.get(self.pos..)?)?;
            let after = bytes.get(open + 1..)?;
            if after.starts_with(b"!--") {
                let close = memchr::memmem::find(after.get(3..)?, b"-->")?;
                self.pos = open + 4 + close + 3;
            } else if after.starts_with(b"!") || after.starts_with(b"?") {
                self.pos = open + 2 + memchr::memchr(b'>', after)?;
            } else if after.first().is_some_and(u8::is_ascii_alphabetic) {
                return self.start_tag(open + 1);
            } else if after.starts_with(b"/") && after.get(1).is_some_and(u8::is_ascii_alphabetic) {
                let name_start = open + 2;
                let name = self.name_at(name_start);
                let close = memchr::memchr(b'>', bytes.get(name_start..)?)?;
                self.pos = name_start + close + 1;
                return Some(Tag::End { name });
            } else {
                self.pos = open + 1;
            }
        }
    }
}

impl Tags<'_> {
    /// The lowercased tag name starting at `start`: `[A-Za-z0-9._:-]*`.
    fn name_at(&self, start: usize) -> String {
        let bytes = self.text.as_bytes().get(start..).unwrap_or_default();
        let length = bytes
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
            .count();
        String::from_utf8_lossy(bytes.get(..length).unwrap_or_default()).to_ascii_lowercase()
    }

    fn start_tag(&mut self, name_start: usize) -> Option<Tag> {
        let name = self.name_at(name_start);
        let mut pos = name_start + name.len();
        let mut attributes: Vec<(String, String)> = Vec::new();
        // The names seen, in a set: a tag of many attributes is read in linear time.
        let mut seen: HashSet<String> = HashSet::default();
        loop {
            pos = skip_spaces(self.text.as_bytes(), pos);
            match self.text.as_bytes().get(pos)? {
                b'>' => break,
                b'/' => pos += 1,
                _ => {
                    let (attribute, end) = self.attribute_at(pos)?;
                    if seen.insert(attribute.0.clone()) {
                        attributes.push(attribute);
                    }
                    pos = end;
                }
            }
        }
        self.pos = pos + 1;
        if LITERAL_ELEMENTS.contains(&name.as_str()) {
            self.skip_literal_content(&name);
        }
        Some(Tag::Start { name, attributes })
    }

    /// One `name[=value]` at `start`; returns it with the position after it.
    fn attribute_at(&self, start: usize) -> Option<((String, String), usize)> {
        let bytes = self.text.as_bytes();
        let name_length = bytes
            .get(start..)?
            .iter()
            .take_while(|&&b| !is_html_space(b) && !matches!(b, b'=' | b'>' | b'/'))
            .count()
            .max(1);
        let name = self
            .text
            .get(start..start + name_length)?
            .to_ascii_lowercase();
        let mut pos = start + name_length;
        let after_name = skip_spaces(bytes, pos);
        if bytes.get(after_name) != Some(&b'=') {
            return Some(((name.clone(), name), pos));
        }
        pos = skip_spaces(bytes, after_name + 1);
        let (raw_value, end) = match bytes.get(pos) {
            Some(&quote @ (b'"' | b'\'')) => {
                let close = memchr::memchr(quote, bytes.get(pos + 1..)?)?;
                (self.text.get(pos + 1..pos + 1 + close)?, pos + close + 2)
            }
            _ => {
                let length = bytes
                    .get(pos..)?
                    .iter()
                    .take_while(|&&b| !is_html_space(b) && b != b'>')
                    .count();
                (self.text.get(pos..pos + length)?, pos + length)
            }
        };
        Some(((name, decode_character_references(raw_value)), end))
    }

    /// Moves past the content of a literal element, up to its end tag. `plaintext` has none:
    /// the rest of the document is its content.
    fn skip_literal_content(&mut self, name: &str) {
        let bytes = self.text.as_bytes();
        let mut from = self.pos;
        while let Some(found) = bytes
            .get(from..)
            .and_then(|rest| memchr::memmem::find(rest, b"</"))
        {
            let at = from + found;
            let candidate = bytes.get(at + 2..at + 2 + name.len());
            let boundary = bytes.get(at + 2 + name.len());
            if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes()))
                && boundary.is_none_or(|&b| is_html_space(b) || b == b'>' || b == b'/')
            {
                self.pos = at;
                return;
            }
            from = at + 2;
        }
        self.pos = bytes.len();
    }
}

fn skip_spaces(bytes: &[u8], from: usize) -> usize {
    from + bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&b| is_html_space(b))
        .count()
}

/// Resolves `&#NN;`, `&#xHH;` and the named references `amp lt gt quot apos nbsp`; anything
/// else is left as written.
fn decode_character_references(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp).unwrap_or_default());
        let after = rest.get(amp + 1..).unwrap_or_default();
        match after
            .find(';')
            .and_then(|semi| Some((reference_char(after.get(..semi)?)?, semi)))
        {
            Some((c, semi)) => {
                out.push(c);
                rest = after.get(semi + 1..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn reference_char(name: &str) -> Option<char> {
    let numeric = |digits: &str, radix| {
        u32::from_str_radix(digits, radix)
            .ok()
            .and_then(char::from_u32)
    };
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some('\u{A0}'),
        _ => {
            let number = name.strip_prefix('#')?;
            match number.strip_prefix(['x', 'X']) {
                Some(hex) => numeric(hex, 16),
                None => numeric(number, 10),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(name: &str, attributes: &[(&str, &str)]) -> Tag {
        Tag::Start {
            name: name.into(),
            attributes: attributes
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
        }
    }

    #[test]
    fn start_and_end_tags_with_attributes() {
        let found: Vec<Tag> = tags(
            "<!DOCTYPE html><HTML lang=de><Meta HTTP-EQUIV='a' content=\"b &amp; c\" x y=z></head>",
        )
        .collect();
        assert_eq!(
            found,
            [
                start("html", &[("lang", "de")]),
                start(
                    "meta",
                    &[
                        ("http-equiv", "a"),
                        ("content", "b & c"),
                        ("x", "x"),
                        ("y", "z")
                    ]
                ),
                Tag::End {
                    name: "head".into()
                },
            ]
        );
    }

    #[test]
    fn comments_processing_instructions_and_literal_content_are_skipped() {
        let text = "<!-- <meta a=1> --><?pi <meta a=2>?><script>'<meta a=3>'</script ><meta a=4>";
        let found: Vec<Tag> = tags(text).collect();
        assert_eq!(
            found,
            [
                start("script", &[]),
                Tag::End {
                    name: "script".into()
                },
                start("meta", &[("a", "4")])
            ]
        );
    }

    #[test]
    fn an_unfinished_tag_is_not_reported() {
        assert_eq!(tags("<p><meta charset='utf-8").count(), 1);
        assert_eq!(tags("<!-- never closed <meta charset=x>").count(), 0);
    }

    #[test]
    fn character_references() {
        assert_eq!(
            decode_character_references("a&#x41;&#66;&lt;&bogus;&"),
            "aAB<&bogus;&"
        );
    }
}
