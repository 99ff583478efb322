//! Folder and file corpora as users hand them to dra (issue 10): walks that
//! end, caps that hold, bad files skipped with a warning each, dra's own
//! runs never read back as evidence, and page metadata from real-world
//! markup (issue 8, item 7).

use std::path::Path;
use std::time::Duration;

use super::common::{TestHome, repo_path};
use dra::corpus::{Corpus, LoadOptions};

pub(super) const QUESTION: &str = "Is Tarsk Mills (Ostrava) a reliable flour supplier? Check leadership, pricing and reliability.";

/// A few good documents about one fictional company.
fn good_docs(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("about.md"),
        "---\ntitle: About Tarsk Mills\nurl: https://tarskmills.example/about\npublished: 2025-02-01\n---\n# About Tarsk Mills\n\nTarsk Mills is a flour miller based in Ostrava. Its chief executive is Dana Kolar, who has led Tarsk Mills since 2019.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pricing.txt"),
        "Tarsk Mills pricing\n\nTarsk Mills charges 410 euros per tonne of bread flour for contracts signed in 2025, according to its published price list.\n",
    )
    .unwrap();
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `dra ask` offline on `corpus`; the run must not fail on the corpus.
fn ask(sb: &TestHome, corpus: &Path, envs: &[(&str, &str)]) -> std::process::Output {
    ask_with(sb, corpus, &[], envs)
}

/// [`ask`] with global flags before `ask` (`-v`, `--json`).
fn ask_with(
    sb: &TestHome,
    corpus: &Path,
    global: &[&str],
    envs: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = sb.dra();
    cmd.arg("--runs-dir")
        .arg(sb.runs())
        .args(global)
        .args(["ask", QUESTION, "--offline", "--corpus"])
        .arg(corpus)
        .timeout(Duration::from_secs(90));
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn assert_not_a_corpus_failure(out: &std::process::Output) {
    let err = stderr_of(out);
    assert!(
        out.status.code().is_some(),
        "dra was killed (timeout?): {err}"
    );
    assert_ne!(out.status.code(), Some(2), "usage error: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_in_a_folder_corpus_ends() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("corpus");
    good_docs(&corpus);
    std::os::unix::fs::symlink(".", corpus.join("dot")).unwrap();
    std::fs::create_dir(corpus.join("sub")).unwrap();
    std::os::unix::fs::symlink("..", corpus.join("sub/up")).unwrap();
    let started = std::time::Instant::now();
    let out = ask(&sb, &corpus, &[]);
    assert_not_a_corpus_failure(&out);
    assert!(started.elapsed() < Duration::from_secs(80));
    let err = stderr_of(&out);
    assert!(err.contains("warning:") && err.contains("loop"), "{err}");
}

#[cfg(unix)]
#[test]
fn dev_zero_as_a_corpus_is_refused_at_the_cap() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", QUESTION, "--offline", "--corpus", "/dev/zero"])
        .env("DRA_CORPUS_MAX_BYTES", "65536")
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("65536") && err.contains("DRA_CORPUS_MAX_BYTES"),
        "{err}"
    );
}

#[test]
fn a_missing_corpus_names_the_os_error_once() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .args([
            "ask",
            QUESTION,
            "--offline",
            "--corpus",
            "/nonexistent/c.json",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/nonexistent/c.json"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

#[test]
fn a_cut_document_is_named_with_its_cap() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("corpus");
    good_docs(&corpus);
    let mut big = String::from("# Tarsk Mills annual report\n\n");
    while big.len() < 20_000 {
        big.push_str("Tarsk Mills milled flour for bakeries across the region this year. ");
    }
    big.push_str("The pricing sentence past the cut: Tarsk Mills raised prices by 4 percent.");
    std::fs::write(corpus.join("annual.md"), &big).unwrap();
    let out = ask(&sb, &corpus, &[("DRA_CORPUS_MAX_DOCUMENT_BYTES", "4096")]);
    assert_not_a_corpus_failure(&out);
    let err = stderr_of(&out);
    assert!(
        err.contains("annual.md") && err.contains("4096") && err.contains("cut"),
        "{err}"
    );
    // The library says which document was cut.
    let opts = LoadOptions {
        max_document_bytes: 4096,
        ..LoadOptions::default()
    };
    let c = Corpus::load(&corpus, &opts).unwrap();
    let annual = c
        .documents()
        .into_iter()
        .find(|d| d.url.ends_with("annual.md"))
        .unwrap();
    assert!(!annual.content.contains("past the cut"));
    assert!(c.truncated(&annual.url).is_some());
    assert!(annual.meta.extra.contains_key(dra::corpus::TRUNCATED_KEY));

    // Under the byte cap but past what the engine keeps of a page: told too.
    let long = sb.dir.path().join("long");
    good_docs(&long);
    let mut text = String::from("# Tarsk Mills history\n\n");
    while text.len() < 130_000 {
        text.push_str("Tarsk Mills has milled flour in Ostrava for many decades now. ");
    }
    std::fs::write(long.join("history.md"), &text).unwrap();
    let out = ask(&TestHome::new(), &long, &[]);
    assert_not_a_corpus_failure(&out);
    let err = stderr_of(&out);
    assert!(
        err.contains("history.md") && err.contains("only the first 120000"),
        "{err}"
    );
    // Cut by both: one warning, naming both cuts.
    let out = ask(
        &TestHome::new(),
        &long,
        &[("DRA_CORPUS_MAX_DOCUMENT_BYTES", "125000")],
    );
    let err = stderr_of(&out);
    let about: Vec<&str> = err.lines().filter(|l| l.contains("history.md")).collect();
    assert_eq!(about.len(), 1, "{err}");
    assert!(
        about[0].contains("only the first 120000") && about[0].contains("125000 bytes"),
        "{err}"
    );
}

#[test]
fn the_runs_folder_inside_the_corpus_is_not_evidence() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("corpus");
    good_docs(&corpus);
    // An old run copied elsewhere in the corpus is skipped too.
    let copied = corpus.join("archive/run-old");
    std::fs::create_dir_all(&copied).unwrap();
    std::fs::write(copied.join("events.jsonl"), "{}\n").unwrap();
    std::fs::write(
        copied.join("report.md"),
        "# Tarsk Mills report\nTarsk Mills charges 999 euros per tonne.",
    )
    .unwrap();
    let runs = corpus.join("runs");
    for _ in 0..2 {
        let out = sb
            .dra()
            .arg("--runs-dir")
            .arg(&runs)
            .args(["ask", QUESTION, "--offline", "--corpus"])
            .arg(&corpus)
            .timeout(Duration::from_secs(90))
            .output()
            .unwrap();
        assert_not_a_corpus_failure(&out);
    }
    let mut run_dirs: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    run_dirs.sort();
    assert_eq!(run_dirs.len(), 2);
    for dir in &run_dirs {
        for file in ["sources.json", "evidence.json", "report.md"] {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                continue;
            };
            assert!(
                !text.contains("/runs/")
                    && !text.contains("run-old")
                    && !text.contains("999 euros"),
                "{file} of {} cites dra's own output:\n{text}",
                dir.display()
            );
        }
    }
    let c = Corpus::load(
        &corpus,
        &LoadOptions {
            skip_dirs: vec![runs.clone()],
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        c.len(),
        2,
        "{:?}",
        c.documents().iter().map(|d| &d.url).collect::<Vec<_>>()
    );
}

/// The bad files of issue 10, each skipped or read with one warning.
pub(super) fn messy_folder(dir: &Path) {
    good_docs(dir);
    // Latin-1 / Windows-1252 text.
    std::fs::write(
        dir.join("latin1.txt"),
        b"Tarsk Mills caf\xe9 report\n\nThe Tarsk Mills caf\xe9 in Ostrava opened in 2021 and serves \x93fresh bread\x94 daily.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("image.txt"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01",
    )
    .unwrap();
    std::fs::write(
        dir.join("corrupt.pdf"),
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage",
    )
    .unwrap();
    std::fs::write(dir.join("empty.pdf"), b"").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("nowhere.md", dir.join("broken.md")).unwrap();
    std::fs::write(
        dir.join("hugo.md"),
        "---\ntitle: Tarsk Mills news\ndate: 2025-06-01T09:00:00+02:00\nauthor: Petra Novak\ntags: [flour, ostrava]\ndraft: false\n---\nTarsk Mills opened a second mill in Opava in June 2025.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bom.md"),
        "\u{feff}---\ntitle: BOM front matter\nurl: https://news.example/tarsk-bom\n---\nTarsk Mills employs 140 people.\n",
    )
    .unwrap();
    // Two files with one canonical URL: the first by path is kept.
    let page = |body: &str| {
        format!(
            "<html><head><title>Tarsk Mills review</title><link rel=\"canonical\" href=\"https://reviews.example/tarsk\"></head><body><p>{body}</p></body></html>"
        )
    };
    std::fs::write(
        dir.join("dup-a.html"),
        page("Bakers rate Tarsk Mills deliveries as punctual."),
    )
    .unwrap();
    std::fs::write(dir.join("dup-b.html"), page("A second copy.")).unwrap();
}

#[test]
fn a_folder_survives_bad_files_with_one_warning_each() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("corpus");
    messy_folder(&corpus);
    // Without -v: the first three loader warnings, then how many more.
    let quiet = stderr_of(&ask(&sb, &corpus, &[]));
    let shown = quiet.lines().filter(|l| l.starts_with("warning:")).count();
    assert!(
        quiet.contains("more from the corpus loader (-v lists them)") && shown <= 5,
        "{quiet}"
    );
    // -v: every one of them.
    let out = ask_with(&sb, &corpus, &["-v"], &[]);
    assert_not_a_corpus_failure(&out);
    let err = stderr_of(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    let about = |name: &str| warnings.iter().filter(|w| w.contains(name)).count();
    for name in [
        "image.txt",
        "corrupt.pdf",
        "empty.pdf",
        "dup-b.html",
        "latin1.txt",
    ] {
        assert_eq!(about(name), 1, "{name}: {warnings:#?}");
    }
    #[cfg(unix)]
    assert_eq!(about("broken.md"), 1, "{warnings:#?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("skipped") && w.contains("read ")),
        "a summary: {warnings:#?}"
    );
    for name in ["hugo.md", "bom.md", "about.md"] {
        assert_eq!(about(name), 0, "{name}: {warnings:#?}");
    }
    // --json: each is a `warning` event (code corpus_loader) on stdout,
    // and stderr does not list them again.
    let out = ask_with(&sb, &corpus, &["--json"], &[]);
    assert_not_a_corpus_failure(&out);
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("stdout is JSON lines"))
        .collect();
    let loader: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "warning" && e["code"] == "corpus_loader")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert_eq!(loader.len(), warnings.len(), "{loader:#?} vs {warnings:#?}");
    assert!(
        loader.iter().any(|w| w.contains("corrupt.pdf")),
        "{loader:#?}"
    );
    assert!(
        !stderr_of(&out).contains("corrupt.pdf"),
        "{}",
        stderr_of(&out)
    );

    let c = Corpus::from_path(&corpus).unwrap();
    let by_end = |end: &str| {
        c.documents()
            .into_iter()
            .find(|d| d.url.ends_with(end))
            .unwrap_or_else(|| panic!("{end} missing"))
    };
    assert!(by_end("latin1.txt").content.contains("café"));
    assert!(
        by_end("latin1.txt")
            .content
            .contains("\u{201c}fresh bread\u{201d}")
    );
    let hugo = by_end("hugo.md");
    assert_eq!(hugo.published.as_deref(), Some("2025-06-01"));
    assert_eq!(hugo.meta.authors, vec!["Petra Novak".to_string()]);
    assert!(hugo.meta.extra.contains_key("tags"));
    let bom = by_end("tarsk-bom");
    assert_eq!(bom.title.as_deref(), Some("BOM front matter"));
    assert!(!bom.content.contains("---"));
    let dup = c.get("https://reviews.example/tarsk").unwrap();
    assert!(
        dup.content.contains("punctual"),
        "the first by path is kept"
    );
}

#[test]
fn a_json_corpus_with_a_bom_and_single_files_are_corpora() {
    let sb = TestHome::new();
    let json = sb.dir.path().join("corpus.json");
    std::fs::write(
        &json,
        "\u{feff}{\"documents\":[{\"url\":\"https://tarskmills.example/\",\"title\":\"Tarsk Mills\",\"content\":\"Tarsk Mills is a flour miller in Ostrava led by Dana Kolar.\"}]}",
    )
    .unwrap();
    let out = ask(&sb, &json, &[]);
    assert_not_a_corpus_failure(&out);
    let dir = sb.dir.path().join("docs");
    good_docs(&dir);
    std::fs::write(
        dir.join("page.html"),
        "<html><head><title>Tarsk Mills</title></head><body><p>Tarsk Mills supplies flour to 300 bakeries.</p></body></html>",
    )
    .unwrap();
    for file in ["about.md", "pricing.txt", "page.html"] {
        let sb = TestHome::new();
        let out = ask(&sb, &dir.join(file), &[]);
        assert_not_a_corpus_failure(&out);
        let err = stderr_of(&out);
        assert!(!err.contains("not valid JSON"), "{file}: {err}");
        assert!(
            err.contains("1 documents") || err.contains("(1 document"),
            "{file}: {err}"
        );
    }
}

#[test]
fn real_world_html_metadata_from_json_ld_opengraph_and_time() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("pages");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("bbc.html"),
        r#"<!doctype html><html><head><title>Obama: US gun laws are my biggest frustration - News</title>
<script type="application/ld+json">{"@context":"http://schema.org","@type":"ReportageNewsArticle","headline":"Obama on guns",
 "datePublished":"2015-07-24T06:41:52+01:00","dateModified":"2015-07-24T07:10:00+01:00",
 "author":{"@type":"Organization","name":"News desk"},"publisher":{"@type":"NewsMediaOrganization","name":"Example Broadcasting"}}</script>
</head><body><nav><a href="/">Home</a><a href="/news">News</a></nav><div class="ad">Buy now!</div>
<article><h1>Obama: US gun laws are my biggest frustration</h1>
<p>President Barack Obama has said the failure to pass what he called common-sense gun safety laws in the US is the greatest frustration of his presidency, in an interview with the broadcaster.</p>
<p>He said it was distressing not to have made progress on the issue even in the face of repeated mass killings.</p></article>
<section class="comments"><time datetime="2019-01-01">a comment</time><p>First!</p></section></body></html>"#,
    )
    .unwrap();
    std::fs::write(
        corpus.join("yoast.html"),
        b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><title>Caf\xe9 notes</title>\n<meta property=\"og:site_name\" content=\"Garden Blog\">\n<script type=\"application/ld+json\">{\"@graph\":[{\"@type\":\"WebSite\",\"name\":\"x\"},{\"@type\":\"BlogPosting\",\"datePublished\":\"2024-03-29\",\"author\":{\"@id\":\"#p\"}},{\"@type\":\"Person\",\"@id\":\"#p\",\"name\":\"Ren\xe9e Blum\"}]}</script>\n<script type=\"application/ld+json\">{ broken json</script></head><body><p>Na\xefve gardening notes about caf\xe9 plants and compost.</p></body></html>",
    )
    .unwrap();
    let c = Corpus::from_path(&corpus).unwrap();
    let bbc = c
        .documents()
        .into_iter()
        .find(|d| d.url.ends_with("bbc.html"))
        .unwrap();
    assert_eq!(bbc.published.as_deref(), Some("2015-07-24"));
    assert_eq!(bbc.source_type, Some(dra::evidence::SourceType::News));
    assert_eq!(bbc.meta.publisher.as_deref(), Some("Example Broadcasting"));
    let blog = c
        .documents()
        .into_iter()
        .find(|d| d.url.ends_with("yoast.html"))
        .unwrap();
    assert_eq!(blog.published.as_deref(), Some("2024-03-29"));
    assert_eq!(blog.source_type, Some(dra::evidence::SourceType::Blog));
    assert_eq!(blog.meta.authors, vec!["Renée Blum".to_string()]);
    assert_eq!(blog.meta.publisher.as_deref(), Some("Garden Blog"));
    assert!(blog.content.contains("Naïve"));

    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "What did President Obama say about US gun laws in his interview?",
            "--offline",
            "--corpus",
        ])
        .arg(&corpus)
        .timeout(Duration::from_secs(90))
        .output()
        .unwrap();
    assert_not_a_corpus_failure(&out);
    let evidence = std::fs::read_to_string(sb.run_dir().join("evidence.json")).unwrap_or_default();
    if evidence.contains("bbc.html") {
        assert!(evidence.contains("2015-07-24"), "{evidence}");
    }
}

/// The gold developer's folder of real-world-shaped pages, when present:
/// every page's publication date (MANIFEST.md) is read, and a run over the
/// folder ends without a panic or a corpus error.
#[test]
fn the_realworld_corpus_dates_match_its_manifest() {
    let dir = repo_path("tests/corpora/realworld");
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.md")) else {
        return;
    };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in manifest.lines().filter(|l| l.contains(".html |")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (file, want) = (cells[1], cells[2]);
        let c = match Corpus::from_path(&dir.join(file)) {
            Ok(c) => c,
            Err(e) => {
                wrong.push(format!("{file}: {e}"));
                continue;
            }
        };
        checked += 1;
        if c.documents()[0].published.as_deref() != Some(want) {
            wrong.push(format!(
                "{file}: {:?}, want {want}",
                c.documents()[0].published
            ));
        }
    }
    assert!(checked >= 20, "{checked} pages checked");
    assert!(wrong.is_empty(), "{wrong:#?}");
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "When did the harbour bridge reopen?",
            "--offline",
            "--corpus",
        ])
        .arg(&dir)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_not_a_corpus_failure(&out);
}
