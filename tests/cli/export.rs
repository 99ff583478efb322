//! `dra export`: a run's cited sources as CSL-JSON, BibTeX and RIS, read
//! back by a tool nobody here wrote (Pandoc's citeproc, from Debian's
//! `pandoc`, which `.ci/run` installs).

use super::common::{PADMAPAY_QUESTION, TestHome};

fn export(sb: &TestHome, args: &[&str]) -> std::process::Output {
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .arg("export")
        .args(args)
        .output()
        .unwrap()
}

/// Pandoc's citeproc renders `[@dra1]` with `bibliography`: the text it
/// prints.
fn citeproc(sb: &TestHome, bibliography: &std::path::Path) -> String {
    let doc = sb.dir.path().join("cite.md");
    std::fs::write(&doc, "As reported [@dra1].\n\n# References\n").unwrap();
    let out = std::process::Command::new("pandoc")
        .arg("--citeproc")
        .arg("--bibliography")
        .arg(bibliography)
        .args(["-t", "plain"])
        .arg(&doc)
        .output()
        .unwrap_or_else(|e| {
            panic!("pandoc is needed (apt-get install pandoc; .ci/run installs it): {e}")
        });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_runs_sources_export_as_bibliographies_pandoc_reads() {
    let sb = TestHome::new();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let sources: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(sb.run_dir().join("sources.json")).unwrap())
            .unwrap();
    let first = sources[0]["title"].as_str().unwrap().to_string();
    // CSL-JSON on stdout: one item per source, keyed by its [n].
    let out = export(&sb, &["--format", "csl-json"]);
    assert!(out.status.success());
    let items: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(items.len(), sources.len());
    assert_eq!(items[0]["id"], "dra1");
    assert_eq!(items[0]["URL"], sources[0]["url"]);
    // Each format, written to a file, renders source [1] through citeproc.
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3)
            .map(str::to_lowercase)
            .collect()
    };
    for (format, file) in [("csl-json", "refs.json"), ("bibtex", "refs.bib")] {
        let path = sb.dir.path().join(file);
        let out = export(&sb, &["--format", format, "-o", path.to_str().unwrap()]);
        assert!(out.status.success(), "{format}");
        let shown = citeproc(&sb, &path).to_lowercase();
        for w in words(&first) {
            assert!(shown.contains(&w), "{format}: {w:?} missing from {shown}");
        }
        assert!(
            shown.contains(sources[0]["url"].as_str().unwrap()),
            "{shown}"
        );
    }
    // RIS: one record per source, every line a tag.
    let out = export(&sb, &["--format", "ris"]);
    let ris = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ris.matches("TY  - ELEC").count(), sources.len());
    assert!(
        ris.lines()
            .all(|l| l.is_empty() || (l.len() >= 5 && &l[2..5] == "  -")),
        "{ris}"
    );
}

#[test]
fn exporting_an_unknown_run_names_it() {
    let sb = TestHome::new();
    let out = export(&sb, &["nosuchrun", "--format", "ris"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nosuchrun") || err.contains("no runs"),
        "{err}"
    );
    // An unknown format is a usage error listing the formats.
    let out = export(&sb, &["--format", "docx"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("csl-json") && err.contains("bibtex"), "{err}");
}
