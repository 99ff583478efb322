use serde_json::{Value, json};

use super::*;

fn support(value: &str, url: &str, as_of: &str) -> Value {
    json!({
        "evidence_id": "e1", "url": url, "origin_url": url, "publisher": url,
        "source_type": "other", "value": value, "snippet": format!("The value is {value}."),
        "retrieved": "2026-12-01", "as_of": as_of, "reliability": 0.6, "counted": true
    })
}

fn field(label: &str, value: &str, url: &str, as_of: &str) -> Value {
    json!({
        "field": "other", "key": label.to_lowercase().replace(' ', "_"), "label": label,
        "value": value, "confidence": 0.7, "outcome": "accepted_one", "uncertain": false,
        "origins": 1, "capped": false, "supporting": [support(value, url, as_of)],
        "history": [], "conflicts": [], "rejected": [], "note": ""
    })
}

/// A run directory with a header, evidence fields and sources.
fn run(root: &Path, name: &str, fields: Vec<Value>, sources: &[&str]) -> std::path::PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let header = json!({"type": "run_header", "run_id": &name[17..], "question": "What about Acme?", "created": format!("2026-{}-01T00:00:00Z", &name[4..6])});
    std::fs::write(dir.join("events.jsonl"), format!("{header}\n")).unwrap();
    std::fs::write(
        dir.join("evidence.json"),
        json!({"fields": fields, "items": []}).to_string(),
    )
    .unwrap();
    let sources: Vec<Value> = sources.iter().map(|u| json!({"url": u})).collect();
    std::fs::write(dir.join("sources.json"), Value::from(sources).to_string()).unwrap();
    dir
}

#[test]
fn values_that_normalise_alike_are_unchanged_and_others_are_changes() {
    let root = tempfile::tempdir().unwrap();
    let a = run(
        root.path(),
        "20261101T000000Z-aaaaaaaa",
        vec![
            field(
                "Acme: funding",
                "US$55M Series B",
                "https://a.example/1",
                "2026-10-01",
            ),
            field(
                "Who is the CEO of Acme",
                "Arjun Pillai",
                "https://a.example/2",
                "2026-10-01",
            ),
            field(
                "Acme: licence",
                "licensed",
                "https://a.example/3",
                "2026-10-01",
            ),
            field(
                "Acme: price",
                "INR 400 per widget",
                "https://a.example/4",
                "2026-10-01",
            ),
        ],
        &[
            "https://a.example/1",
            "https://a.example/2",
            "https://a.example/3",
        ],
    );
    let b = run(
        root.path(),
        "20261201T000000Z-bbbbbbbb",
        vec![
            // Same value, other words, later date: unchanged.
            field(
                "Acme: funding",
                "Series B of $55 million",
                "https://a.example/1",
                "2026-11-20",
            ),
            field(
                "Who is the CEO of Acme?",
                "Kavya Menon",
                "https://a.example/5",
                "2026-11-01",
            ),
            field(
                "Acme: price",
                "INR 350 per widget",
                "https://a.example/4",
                "2026-11-01",
            ),
            field(
                "Acme: headquarters",
                "Kochi",
                "https://a.example/6",
                "2026-11-01",
            ),
        ],
        &[
            "https://a.example/1",
            "https://a.example/5",
            "https://a.example/6",
        ],
    );
    let c = between(&a, &b).unwrap();
    let kinds: Vec<(ChangeKind, &str)> = c
        .fields
        .iter()
        .map(|f| (f.kind, f.label.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::Changed, "Who is the CEO of Acme?"),
            (ChangeKind::Changed, "Acme: price"),
            (ChangeKind::New, "Acme: headquarters"),
            (ChangeKind::Retracted, "Acme: licence"),
            (ChangeKind::Unchanged, "Acme: funding"),
        ]
    );
    assert!(c.any());
    let ceo = &c.fields[0];
    assert_eq!(ceo.before.as_ref().unwrap().value, "Arjun Pillai");
    assert_eq!(ceo.after.as_ref().unwrap().url, "https://a.example/5");
    assert_eq!(
        ceo.after.as_ref().unwrap().as_of.as_deref(),
        Some("2026-11-01")
    );
    assert_eq!(
        c.sources_added,
        ["https://a.example/5", "https://a.example/6"]
    );
    assert_eq!(
        c.sources_removed,
        ["https://a.example/2", "https://a.example/3"]
    );
    assert_eq!(c.from.id, "aaaaaaaa");
    let md = markdown(&c);
    assert!(md.starts_with("# Changes since 2026-11-01\n"), "{md}");
    assert!(md.contains("**Who is the CEO of Acme?** (changed): Arjun Pillai → Kavya Menon"));
    assert!(md.contains("1 retracted, 1 unchanged"));
}

/// Two runs of one "Acme: price" field, each stated as (value, url, date)
/// and read from that url alone, compared.
fn price_change(before: (&str, &str, &str), after: (&str, &str, &str)) -> Changes {
    let root = tempfile::tempdir().unwrap();
    let side = |name: &str, (value, url, date): (&str, &str, &str)| {
        run(
            root.path(),
            name,
            vec![field("Acme: price", value, url, date)],
            &[url],
        )
    };
    let a = side("20261101T000000Z-aaaaaaaa", before);
    let b = side("20261201T000000Z-bbbbbbbb", after);
    between(&a, &b).unwrap()
}

#[test]
fn the_same_answers_from_other_pages_are_no_change() {
    let c = price_change(
        ("INR 400", "https://a.example/1", "2026-10-01"),
        ("400 INR", "https://copy.example/1", "2026-11-30"),
    );
    assert!(!c.any(), "{c:?}");
    assert!(markdown(&c).contains("Nothing the sources say has changed."));
}

#[test]
fn a_run_without_evidence_is_named_with_how_to_finish_it() {
    let root = tempfile::tempdir().unwrap();
    let a = run(root.path(), "20261101T000000Z-aaaaaaaa", vec![], &[]);
    std::fs::remove_file(a.join("evidence.json")).unwrap();
    let b = run(root.path(), "20261201T000000Z-bbbbbbbb", vec![], &[]);
    let e = between(&a, &b).unwrap_err().to_string();
    assert!(e.contains("aaaaaaaa") && e.contains("dra resume"), "{e}");
}

#[test]
fn page_text_reaches_the_changes_as_one_inert_line() {
    let hostile = "INR 350 [see](https://evil.example/x)\u{1b}[2J\nnext";
    let c = price_change(
        ("INR 400", "https://a.example/1", "2026-10-01"),
        (hostile, "https://a.example/1", "2026-11-01"),
    );
    let after = c.fields[0].after.as_ref().unwrap();
    assert!(
        !after.value.contains('\u{1b}') && !after.value.contains('\n'),
        "{after:?}"
    );
    let md = markdown(&c);
    assert!(!md.contains("evil.example"), "{md}");
    assert!(md.contains("https://a.example/1"), "{md}");
}
