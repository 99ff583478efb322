//! Verbatim checks: a quote counts only if it appears in the stored text of
//! the page it cites. What a quote picks up on its way through JSON, HTML
//! and a model is forgiven (escape sequences such as `\n`, `\"`, `\u2019`;
//! HTML entities such as `&amp;`, `&#8217;`; typographic quotes and dashes;
//! NBSP and other whitespace), the words and digits are not.

/// Undoes the artefacts text picks up when it travels as a JSON string or
/// as HTML: backslash escapes (`\n`, `\t`, `\"`, `\\`, `\/`, `\uXXXX` with
/// surrogate pairs) and character references (`&amp;`, `&#8217;`,
/// `&#x2019;`, a few common named ones). Anything else is kept as is, so a
/// lone backslash or ampersand in real text survives.
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['\\', '&']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let (decoded, used) = if rest.starts_with('\\') {
            backslash_escape(rest)
        } else {
            entity(rest)
        };
        match decoded {
            Some(s) => {
                out.push_str(&s);
                rest = &rest[used..];
            }
            None => {
                // Not an escape: keep the character and move on.
                out.push_str(&rest[..1]);
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A backslash escape at the start of `s`: its text and the bytes it used.
fn backslash_escape(s: &str) -> (Option<String>, usize) {
    let mut chars = s.chars();
    chars.next();
    let simple = match chars.next() {
        Some('n') | Some('r') | Some('t') => Some(" "),
        Some('"') => Some("\""),
        Some('\'') => Some("'"),
        Some('\\') => Some("\\"),
        Some('/') => Some("/"),
        Some('u') => None,
        _ => return (None, 0),
    };
    if let Some(t) = simple {
        return (Some(t.to_string()), 2);
    }
    let Some(hi) = hex4(s.get(2..6)) else {
        return (None, 0);
    };
    if (0xD800..0xDC00).contains(&hi) {
        // A surrogate pair: `\ud83d\ude00`.
        if s.get(6..8) == Some("\\u")
            && let Some(lo) = hex4(s.get(8..12))
            && (0xDC00..0xE000).contains(&lo)
        {
            let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return (char::from_u32(cp).map(String::from), 12);
        }
        return (None, 0);
    }
    (char::from_u32(hi).map(String::from), 6)
}

fn hex4(s: Option<&str>) -> Option<u32> {
    let s = s?;
    if s.len() == 4 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(s, 16).ok()
    } else {
        None
    }
}

/// Named references a page or a model is likely to leave in a quote.
const NAMED_ENTITIES: &[(&str, char)] = &[
    ("amp", '&'),
    ("quot", '"'),
    ("apos", '\''),
    ("lt", '<'),
    ("gt", '>'),
    ("nbsp", '\u{00A0}'),
    ("rsquo", '\u{2019}'),
    ("lsquo", '\u{2018}'),
    ("rdquo", '\u{201D}'),
    ("ldquo", '\u{201C}'),
    ("sbquo", '\u{201A}'),
    ("bdquo", '\u{201E}'),
    ("ndash", '\u{2013}'),
    ("mdash", '\u{2014}'),
    ("minus", '\u{2212}'),
    ("hellip", '\u{2026}'),
    ("laquo", '\u{00AB}'),
    ("raquo", '\u{00BB}'),
    ("shy", '\u{00AD}'),
    ("thinsp", '\u{2009}'),
    ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'),
    ("zwj", '\u{200D}'),
    ("zwnj", '\u{200C}'),
];

/// A character reference at the start of `s` (`&...;`): its text and the
/// bytes it used.
fn entity(s: &str) -> (Option<String>, usize) {
    let Some(end) = s.get(1..).and_then(|t| t.find(';')).map(|e| e + 1) else {
        return (None, 0);
    };
    if end > 12 {
        return (None, 0);
    }
    let name = &s[1..end];
    let c = if let Some(num) = name.strip_prefix('#') {
        let n = match num.strip_prefix(['x', 'X']) {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()
            }
            None if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => num.parse().ok(),
            _ => None,
        };
        n.and_then(char::from_u32)
    } else {
        NAMED_ENTITIES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
    };
    match c {
        Some(c) => (Some(c.to_string()), end + 1),
        None => (None, 0),
    }
}

/// Normalises text for quote matching: curly quotes and dashes folded,
/// invisible characters dropped, whitespace collapsed.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if super::clean::is_invisible(c) {
            continue;
        }
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
            | '\u{00BB}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
            '\u{2026}' => {
                out.push_str("...");
                space = false;
                continue;
            }
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// Whether `quote` appears verbatim (after [`unescape`] and [`normalize`])
/// in `text`.
pub fn quote_in_text(quote: &str, text: &str) -> bool {
    let q = quoted_words(quote);
    q.chars().count() >= MIN_QUOTE_CHARS && normalize(&unescape(text)).contains(&q)
}

/// What a quote says, as matched: unescaped, normalised, without the
/// quotation marks and spaces around it.
fn quoted_words(quote: &str) -> String {
    normalize(&unescape(quote))
        .trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace())
        .to_string()
}

/// The fewest characters a quote may have: anything shorter (a bare
/// figure, one word) is found on too many pages to prove anything.
pub const MIN_QUOTE_CHARS: usize = 8;

/// Whether a quote is too short to be checked ([`MIN_QUOTE_CHARS`]).
pub fn is_too_short(quote: &str) -> bool {
    quoted_words(quote).chars().count() < MIN_QUOTE_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerates_whitespace_and_quote_styles() {
        let text = "He said \u{201C}fees are 1.9%\u{201D}\n   for  domestic cards.";
        assert!(quote_in_text(
            "said \"fees are 1.9%\" for domestic cards.",
            text
        ));
        assert!(!quote_in_text("said \"fees are 1.5%\"", text));
        assert!(!quote_in_text("1.9%", text), "too short to be a quote");
        assert!(is_too_short(" \"1.9%\" "));
        assert!(!is_too_short("fees are 1.9%"));
    }

    #[test]
    fn tolerates_escape_artefacts_and_entities() {
        let text = "Kavya Menon said: \u{201C}We\u{2019}re profitable \u{2014} finally.\u{201D}\nFees fell to 1.9%\u{00A0}for R&D firms.";
        for quote in [
            r#"We\u2019re profitable \u2014 finally."#,
            r#"said: \"We're profitable - finally.\"\nFees fell"#,
            "We&#8217;re profitable &mdash; finally.",
            "We&rsquo;re profitable &#x2014; finally.&quot;",
            "Fees fell to 1.9% for R&amp;D firms.",
            "finally.\u{201D}\\tFees fell to 1.9%\\u00a0for R&D",
        ] {
            assert!(quote_in_text(quote, text), "should verify: {quote}");
        }
        for quote in [
            r#"We\u2019re profitable \u2014 finally!"#,
            "Fees fell to 1.8% for R&amp;D firms.",
            "Fees fell to 1.9% for R&amp;B firms.",
        ] {
            assert!(!quote_in_text(quote, text), "should fail: {quote}");
        }
    }

    #[test]
    fn code_blocks_and_table_rows_match_as_text_and_only_as_written() {
        let page = super::super::clean::clean_html(
            "<p>Set the levels as follows:</p><pre>[harbor]\ndrift = 3\n\n[sea]\ndrift = 8</pre><table><tr><th>Code</th><th>Means</th></tr><tr><td>%k</td><td>knots<br>of wind</td></tr></table>",
        );
        let unit = crate::evidence::sentences::split(&page.text)[0];
        assert!(unit.ends_with("drift = 8"), "{unit:?}");
        assert!(quote_in_text(unit, &page.text));
        assert!(quote_in_text(
            "as follows: [harbor] drift = 3 [sea] drift = 8",
            &page.text
        ));
        assert!(quote_in_text("%k | knots of wind", &page.text));
        for quote in [
            "[harbor] drift = 4",
            "as follows: drift = 3",
            "%k | knots of rain",
        ] {
            assert!(!quote_in_text(quote, &page.text), "should fail: {quote}");
        }
    }

    #[test]
    fn unescape_keeps_what_is_not_an_escape() {
        assert_eq!(unescape(r"C:\users & co; \u12"), r"C:\users & co; \u12");
        assert_eq!(unescape("AT&T &unknown; &#;"), "AT&T &unknown; &#;");
        assert_eq!(unescape(r"a\\nb"), r"a\nb");
        assert_eq!(unescape(r"\ud83d\ude00 ok"), "\u{1F600} ok");
        assert_eq!(unescape(r"\ud83d alone"), r"\ud83d alone");
    }

    /// A page sentence: words, digits and the punctuation models mangle.
    fn sentence() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let word = prop_oneof![
            "[A-Za-z]{2,9}",
            "[0-9]{1,4}(\\.[0-9])?%?",
            "[A-Za-z]{2,6}\u{2019}[a-z]{1,2}",
            "\u{201C}[A-Za-z]{2,8}\u{201D}",
            "[A-Za-z]{1,4}&[A-Za-z]{1,4}",
            Just("\u{2014}".to_string()),
            Just("\u{2013}".to_string()),
        ];
        proptest::collection::vec(word, 3..14).prop_map(|w| format!("{}.", w.join(" ")))
    }

    /// What JSON, HTML and a model may do to one character of a quote.
    fn mangle(s: &str, picks: &[u8]) -> String {
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            let k = picks.get(i % picks.len().max(1)).copied().unwrap_or(0) as usize;
            let pick = |opts: &[&str]| opts[k % opts.len()].to_string();
            out.push_str(&match c {
                ' ' => pick(&[
                    " ", "\\n", "\\t", "\u{00A0}", "  ", "&nbsp;", "\\u00a0", "\n ",
                ]),
                '\u{2019}' => pick(&["'", "\\u2019", "&#8217;", "&rsquo;", "\u{2019}", "`"]),
                '\u{201C}' => pick(&["\"", "\\\"", "&quot;", "&#8220;", "\\u201c", "&ldquo;"]),
                '\u{201D}' => pick(&["\"", "\\\"", "&quot;", "&#x201D;", "\\u201D", "&rdquo;"]),
                '\u{2014}' => pick(&["-", "--", "\\u2014", "&mdash;", "&#8212;", "\u{2014}"]),
                '\u{2013}' => pick(&["-", "\\u2013", "&ndash;", "\u{2013}"]),
                '&' => pick(&["&", "&amp;", "&#38;", "\\u0026"]),
                c => c.to_string(),
            });
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn a_mangled_page_sentence_still_verifies(
            s in sentence(),
            picks in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..16),
        ) {
            proptest::prop_assume!(s.chars().filter(|c| c.is_alphanumeric()).count() >= 8);
            let page = format!("Intro text here.\n\n{s}\n\nClosing words follow.");
            let quote = mangle(&s, &picks);
            // `--` for an em dash is two characters: only where the dash was alone.
            let dashes_ok = !quote.contains("--");
            if dashes_ok {
                proptest::prop_assert!(quote_in_text(&quote, &page), "{quote:?} vs {s:?}");
            }
        }

        #[test]
        fn one_changed_word_or_digit_never_verifies(
            s in sentence(),
            picks in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..16),
            at in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let page = format!("Intro text here.\n\n{s}\n\nClosing words follow.");
            let alnum: Vec<(usize, char)> = s.char_indices().filter(|(_, c)| c.is_ascii_alphanumeric()).collect();
            proptest::prop_assume!(!alnum.is_empty());
            let (i, c) = alnum[at.index(alnum.len())];
            let swapped = match c {
                '9' => '0',
                '0'..='8' => char::from(c as u8 + 1),
                'z' => 'a',
                'Z' => 'A',
                c => char::from(c as u8 + 1),
            };
            let changed = format!("{}{swapped}{}", &s[..i], &s[i + c.len_utf8()..]);
            let quote = mangle(&changed, &picks);
            proptest::prop_assert!(!quote_in_text(&quote, &page), "{quote:?} vs {s:?}");
        }
    }
}
