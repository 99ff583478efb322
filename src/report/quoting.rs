//! How a quoted sentence is written in the report: on one line, between
//! quotation marks unless it is a quotation end to end.

pub(super) fn one_line(s: &str) -> String {
    s.replace('\n', " ").trim().to_string()
}

/// A quote on one line between quotation marks, unless the quoted
/// sentence is itself a quotation from end to end (no doubled marks).
pub(super) fn quoted(s: &str) -> String {
    let t = one_line(s);
    let pairs = [('"', '"'), ('\u{201C}', '\u{201D}')];
    let mut chars = t.chars();
    let (first, last) = (chars.next(), chars.next_back());
    if pairs
        .iter()
        .any(|&(open, close)| first == Some(open) && last == Some(close))
    {
        t
    } else {
        format!("\"{t}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_that_is_a_quotation_is_not_quoted_twice() {
        assert_eq!(
            quoted("Final authorisation was granted."),
            "\"Final authorisation was granted.\""
        );
        assert_eq!(
            quoted("\"Final authorisation was granted.\""),
            "\"Final authorisation was granted.\""
        );
        assert_eq!(
            quoted("\u{201C}Granted.\u{201D}"),
            "\u{201C}Granted.\u{201D}"
        );
        // Marks only at one end are the sentence's own.
        assert_eq!(quoted("\"Granted\" it was."), "\"\"Granted\" it was.\"");
    }
}
