//! Spotlighting: every untrusted text a model reads (page text, search
//! results, findings) sits between per-run random delimiters that the
//! system prompts declare to be data. The delimiter's spelling lives here,
//! beside its one writer ([`wrap`]) and its one parser ([`unwrap`]).

/// The opening delimiter, before the run's marker.
pub const OPEN: &str = "<<untrusted-data";
/// The closing delimiter, before the run's marker.
pub const CLOSE: &str = "<</untrusted-data";

/// Wraps untrusted text in the delimiters with this run's marker. The marker
/// is removed from the text, so the text cannot close its own wrapping.
pub fn wrap(marker: &str, text: &str) -> String {
    let inner = if marker.is_empty() {
        text.to_string()
    } else {
        text.replace(marker, "")
    };
    format!("{OPEN} {marker}>>\n{inner}\n{CLOSE} {marker}>>")
}

/// How prompts name the delimiters: "<<untrusted-data M>> and
/// <</untrusted-data M>>".
pub fn describe(marker: &str) -> String {
    format!("{OPEN} {marker}>> and {CLOSE} {marker}>>")
}

/// The text inside the delimiters; text that is not wrapped comes back as is.
pub fn unwrap(text: &str) -> &str {
    let text = text.trim();
    match (text.find(">>\n"), text.rfind(&format!("\n{CLOSE}"))) {
        (Some(a), Some(b)) if text.starts_with(OPEN) && a + 3 <= b => &text[a + 3..b],
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_what_it_wraps() {
        assert_eq!(unwrap(&wrap("ab12", "hello")), "hello");
        assert_eq!(unwrap("plain"), "plain");
        assert_eq!(
            wrap("ab12", "x ab12 y"),
            "<<untrusted-data ab12>>\nx  y\n<</untrusted-data ab12>>"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_round_trips(text in "\\PC{0,300}", marker in "[0-9a-f]{12}") {
            let wrapped = wrap(&marker, &text);
            let inner = unwrap(&wrapped);
            proptest::prop_assert_eq!(inner, text.replace(&marker, ""));
            let _ = unwrap(&text);
        }
    }
}
