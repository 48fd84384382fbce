//! UTF-7 (RFC 2152), just enough to read and write what HTML::Encoding looks for.
//!
//! HTML::Encoding considers UTF-7 only when asked to. Its byte order mark is the encoding of
//! U+FEFF as a complete shifted run, `+/v8-`; a document whose U+FEFF shares a base64 run with
//! the next character (`+/v8A9g-`) does not start with that sequence, which is why the
//! documentation's table says such a BOM goes undetected. `encoding_rs` has no UTF-7, so the codec
//! lives here.

use super::suspect::Decoded;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// RFC 2152's directly encoded characters: Set D, Set O, and the four white-space characters.
fn is_direct(c: char) -> bool {
    c.is_ascii_alphanumeric() || "'(),-./:? \t\r\n!\"#$%&*;<=>@[]^_`{|}".contains(c)
}

fn base64_value(byte: u8) -> Option<u32> {
    BASE64
        .iter()
        .position(|&b| b == byte)
        .and_then(|i| u32::try_from(i).ok())
}

/// Encodes one character the way Perl's Encode does: directly if allowed, `+-` for `+`,
/// otherwise as a shifted run closed with `-`.
pub(crate) fn encode_char(c: char) -> Vec<u8> {
    if c == '+' {
        return b"+-".to_vec();
    }
    if is_direct(c) {
        return c.to_string().into_bytes();
    }
    let mut out = vec![b'+'];
    let mut bits: u32 = 0;
    let mut bit_count = 0;
    for unit in c.encode_utf16(&mut [0; 2]).iter() {
        bits = (bits << 16) | u32::from(*unit);
        bit_count += 16;
        while bit_count >= 6 {
            bit_count -= 6;
            out.push(BASE64[((bits >> bit_count) & 0x3F) as usize]);
        }
    }
    if bit_count > 0 {
        out.push(BASE64[((bits << (6 - bit_count)) & 0x3F) as usize]);
    }
    out.push(b'-');
    out
}

/// Decodes up to the first malformed or truncated sequence.
pub(crate) fn decode(bytes: &[u8]) -> Decoded {
    let mut text = String::new();
    let mut pos = 0;
    while let Some(&byte) = bytes.get(pos) {
        match byte {
            b'+' => match bytes.get(pos + 1) {
                Some(b'-') => {
                    text.push('+');
                    pos += 2;
                }
                Some(&next) if base64_value(next).is_some() => {
                    match decode_shifted_run(bytes, pos + 1, &mut text) {
                        Some(end) => pos = end,
                        None => {
                            return Decoded {
                                text,
                                complete: false,
                            };
                        }
                    }
                }
                _ => {
                    return Decoded {
                        text,
                        complete: false,
                    };
                }
            },
            0x00..=0x7F => {
                text.push(char::from(byte));
                pos += 1;
            }
            _ => {
                return Decoded {
                    text,
                    complete: false,
                };
            }
        }
    }
    Decoded {
        text,
        complete: true,
    }
}

/// Decodes the base64 run starting at `start`, pushing its characters; returns the position
/// after the run (and after its optional closing `-`), or `None` if the run is malformed.
fn decode_shifted_run(bytes: &[u8], start: usize, text: &mut String) -> Option<usize> {
    let mut pos = start;
    let mut bits: u32 = 0;
    let mut bit_count = 0;
    let mut pending_high_surrogate: Option<u16> = None;
    while let Some(value) = bytes.get(pos).and_then(|&b| base64_value(b)) {
        bits = ((bits << 6) | value) & 0x3F_FFFF;
        bit_count += 6;
        pos += 1;
        if bit_count >= 16 {
            bit_count -= 16;
            let unit = u16::try_from((bits >> bit_count) & 0xFFFF).ok()?;
            match (pending_high_surrogate.take(), unit) {
                (None, 0xD800..=0xDBFF) => pending_high_surrogate = Some(unit),
                (None, _) => text.push(char::from_u32(u32::from(unit))?),
                (Some(high), 0xDC00..=0xDFFF) => {
                    let c = char::decode_utf16([high, unit]).next()?.ok()?;
                    text.push(c);
                }
                (Some(_), _) => return None,
            }
        }
    }
    let leftover = bits & ((1 << bit_count) - 1);
    if pending_high_surrogate.is_some() || bit_count >= 6 || leftover != 0 {
        return None;
    }
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_order_mark_is_plus_slash_v8_dash() {
        assert_eq!(encode_char('\u{FEFF}'), b"+/v8-");
    }

    #[test]
    fn markup_characters_are_direct() {
        for c in ['<', '>', '?', ' ', '\t', '\r', '\n'] {
            assert_eq!(encode_char(c), c.to_string().into_bytes());
        }
        assert_eq!(encode_char('+'), b"+-");
        assert_eq!(encode_char('\u{2028}'), b"+ICg-");
    }

    #[test]
    fn decodes_a_shared_run_and_astral_characters() {
        let decoded = decode(b"+/v8A9g-x+-y+2D3eAA-");
        assert!(decoded.complete);
        assert_eq!(decoded.text, "\u{FEFF}\u{F6}x+y\u{1F600}");
    }

    #[test]
    fn stops_at_non_ascii_and_at_bad_padding() {
        let decoded = decode(b"ab\xC3");
        assert_eq!((decoded.text.as_str(), decoded.complete), ("ab", false));
        assert!(!decode(b"+/v9-").complete);
    }
}
