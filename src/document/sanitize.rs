//! Text from outside (page titles, quotes, URLs, questions, error messages)
//! made safe to print or write: no terminal control sequence and no bidi
//! override survives. ESC sequences are removed whole (CSI up to its final
//! byte, OSC/DCS/SOS/PM/APC up to BEL or ST), so `ESC ]0;title BEL` leaves
//! nothing behind, not a stray `]0;title`.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// The 8-bit forms of CSI, OSC, DCS, SOS, PM, APC and ST.
const C1_CSI: char = '\u{9b}';
const C1_ST: char = '\u{9c}';
const C1_STRINGS: [char; 5] = ['\u{9d}', '\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

/// Bidi embeddings, overrides, isolates and marks: they reorder what a
/// reader sees (a filename or URL that reads backwards).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A character no output of dra may carry: C0 controls other than newline
/// and tab, DEL, C1 controls and bidi controls.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// Removes control sequences and unsafe characters; keeps newlines and tabs
/// (report.md, multi-line text). A carriage return is dropped before a
/// newline and becomes a space elsewhere.
pub fn sanitize_text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c) || c == '\r') {
        return Cow::Borrowed(s);
    }
    Cow::Owned(clean(s, false))
}

/// Like [`sanitize_text`], for one line (a terminal row, a title): newlines,
/// carriage returns and tabs become spaces too.
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(clean(s, true))
}

fn clean(s: &str, one_line: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    // A character read past an ESC that starts nothing: looked at again.
    let mut pending: Option<char> = None;
    while let Some(c) = pending.take().or_else(|| chars.next()) {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // nF escapes: intermediates (0x20-0x2F), then one final byte.
                Some(' '..='/') => {
                    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
                    chars.next_if(|c| matches!(c, '0'..='~'));
                }
                // Two-character escapes (ESC 7, ESC c, ESC \ ...): both go.
                Some('0'..='~') | None => {}
                // ESC before anything else: drop the ESC, look at what follows.
                Some(other) => pending = Some(other),
            },
            C1_CSI => skip_csi(&mut chars),
            c if C1_STRINGS.contains(&c) => skip_string(&mut chars),
            '\n' | '\t' | '\r' if one_line => out.push(' '),
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push(' '),
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// CSI: parameter bytes (0x30-0x3F), intermediates (0x20-0x2F), one final
/// byte (0x40-0x7E). Anything else ends the sequence early (and is kept).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.next_if(|c| matches!(c, '0'..='?')).is_some() {}
    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// OSC and the other string sequences: everything up to BEL, ESC \ or the
/// 8-bit ST. An unterminated one ends at the line's end, as far as a
/// terminal would have swallowed it on that line.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            BEL | C1_ST => {
                chars.next();
                return;
            }
            ESC => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            '\n' => return,
            _ => {
                chars.next();
            }
        }
    }
}

/// One clean line: sanitised, every run of whitespace (newlines, tabs,
/// spaces) one space, trimmed. A multi-line question becomes the one line
/// the planner and the prompts read, with none of its words lost.
pub fn single_line(s: &str) -> String {
    sanitize_line(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether text is already free of everything [`sanitize_text`] removes.
pub fn is_clean(s: &str) -> bool {
    !s.chars().any(is_unsafe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn whole_escape_sequences_go() {
        assert_eq!(sanitize_text("a\u{1b}]0;pwned\u{07}b"), "ab");
        assert_eq!(
            sanitize_text("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b"),
            "alinkb"
        );
        assert_eq!(
            sanitize_text("\u{1b}[2Jclear\u{1b}[1;31mred\u{1b}[0m"),
            "clearred"
        );
        assert_eq!(sanitize_text("x\u{9b}31my"), "xy");
        assert_eq!(sanitize_text("x\u{9d}0;t\u{9c}y"), "xy");
        assert_eq!(sanitize_text("keep\u{1b}"), "keep");
        assert_eq!(sanitize_text("x\u{1b}(By"), "xy");
    }

    #[test]
    fn controls_and_bidi_go_newlines_and_tabs_stay() {
        assert_eq!(sanitize_text("a\u{0}b\u{7f}c\u{85}d"), "abcd");
        assert_eq!(
            sanitize_text("evil\u{202E}txt.exe\u{2066}\u{200F}"),
            "eviltxt.exe"
        );
        assert_eq!(
            sanitize_text("one\r\ntwo\tthree\rfour"),
            "one\ntwo\tthree four"
        );
        assert_eq!(sanitize_line("one\ntwo\tthree"), "one two three");
        assert!(matches!(sanitize_text("plain ünïcödé"), Cow::Borrowed(_)));
    }

    #[test]
    fn unterminated_strings_end_at_the_line() {
        assert_eq!(sanitize_text("a\u{1b}]0;never ends\nnext"), "a\nnext");
    }

    proptest! {
        #[test]
        fn no_unsafe_character_survives(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let s = String::from_utf8_lossy(&bytes);
            let t = sanitize_text(&s);
            prop_assert!(is_clean(&t), "{t:?}");
            let l = sanitize_line(&s);
            prop_assert!(!l.chars().any(|c| c.is_control() || is_bidi_control(c)), "{l:?}");
        }

        #[test]
        fn unsafe_characters_anywhere_are_removed(
            parts in proptest::collection::vec(
                prop_oneof![
                    "[a-zA-Z0-9 .,]{0,8}",
                    Just("\u{1b}".to_string()), Just("\u{1b}[".to_string()), Just("\u{1b}]".to_string()),
                    Just("\u{07}".to_string()), Just("\u{9b}".to_string()), Just("\u{9d}".to_string()),
                    Just("\u{202E}".to_string()), Just("\u{2066}".to_string()), Just("\n".to_string()),
                    Just("\r".to_string()), Just("\u{1b}\\".to_string()),
                ],
                0..30,
            )
        ) {
            let s = parts.concat();
            let t = sanitize_text(&s);
            prop_assert!(is_clean(&t), "{s:?} -> {t:?}");
            // Sanitising is idempotent.
            prop_assert_eq!(sanitize_text(&t), t.clone());
        }

        #[test]
        fn single_line_keeps_every_word(words in proptest::collection::vec("[a-zA-Z0-9?.,]{1,8}", 0..12),
                                        seps in proptest::collection::vec(prop_oneof![Just(" "), Just("\n"), Just("\t"), Just("\r\n"), Just("  \n\t")], 12)) {
            let mut s = String::new();
            for (w, sep) in words.iter().zip(&seps) {
                s.push_str(w);
                s.push_str(sep);
            }
            let line = single_line(&s);
            prop_assert_eq!(line.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>(), words.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert!(!line.contains(['\n', '\t', '\r']) && !line.contains("  "));
        }

        #[test]
        fn clean_text_is_untouched(s in "[^\\p{Cc}\\p{Cf}]{0,80}") {
            prop_assert_eq!(sanitize_text(&s), s.as_str());
        }
    }
}
