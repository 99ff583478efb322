//! What kind of source a page is, when the page does not say.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    Regulator,
    Official,
    News,
    PressRelease,
    Review,
    Forum,
    Blog,
    Other,
}

impl SourceType {
    pub fn parse(s: &str) -> Option<SourceType> {
        Some(
            match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
                "regulator" => SourceType::Regulator,
                "official" => SourceType::Official,
                "news" => SourceType::News,
                "press_release" | "press" => SourceType::PressRelease,
                "review" => SourceType::Review,
                "forum" => SourceType::Forum,
                "blog" => SourceType::Blog,
                "other" => SourceType::Other,
                _ => return None,
            },
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Regulator => "regulator",
            SourceType::Official => "official",
            SourceType::News => "news",
            SourceType::PressRelease => "press_release",
            SourceType::Review => "review",
            SourceType::Forum => "forum",
            SourceType::Blog => "blog",
            SourceType::Other => "other",
        }
    }
}

/// Infers a source type from the URL, the title and the official domain.
pub fn infer(url: &str, title: &str, official_domain: Option<&str>) -> SourceType {
    let host = super::host_of(url);
    let lower_url = url.to_ascii_lowercase();
    let title = title.to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let has_label = |words: &[&str]| labels.iter().any(|l| words.iter().any(|w| l.contains(w)));
    if has_label(&["regulator", "registry", "gov", "authority", "sebi", "fca"]) {
        return SourceType::Regulator;
    }
    if lower_url.contains("/press")
        || title.contains("press release")
        || has_label(&["newswire", "prnews", "wire"])
    {
        return SourceType::PressRelease;
    }
    if let Some(d) = official_domain {
        let d = d.trim().trim_start_matches("www.").to_ascii_lowercase();
        if host == d || host.ends_with(&format!(".{d}")) {
            return SourceType::Official;
        }
    }
    if has_label(&["forum", "community", "reddit", "discuss"])
        || lower_url.contains("/forum")
        || lower_url.contains("/thread")
    {
        return SourceType::Forum;
    }
    if has_label(&["review", "rating", "trustpilot", "g2"]) || lower_url.contains("review") {
        return SourceType::Review;
    }
    if has_label(&["blog", "medium", "substack"]) || lower_url.contains("/blog") {
        return SourceType::Blog;
    }
    if has_label(&[
        "news", "times", "daily", "journal", "post", "herald", "tribune", "gazette", "wire",
    ]) {
        return SourceType::News;
    }
    SourceType::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_common_types() {
        assert_eq!(
            infer("https://registry.npa.example/x", "", None),
            SourceType::Regulator
        );
        assert_eq!(
            infer(
                "https://padmapay.example/pricing",
                "",
                Some("padmapay.example")
            ),
            SourceType::Official
        );
        assert_eq!(
            infer(
                "https://padmapay.example/press/series-b",
                "",
                Some("padmapay.example")
            ),
            SourceType::PressRelease
        );
        assert_eq!(
            infer("https://kochibusinesstimes.example/a", "", None),
            SourceType::News
        );
        assert_eq!(
            infer("https://forum.merchants.example/t/1", "", None),
            SourceType::Forum
        );
        assert_eq!(
            infer("https://x.example/blog/2023/fees", "", None),
            SourceType::Blog
        );
        assert_eq!(infer("https://x.example/a", "", None), SourceType::Other);
    }
}
