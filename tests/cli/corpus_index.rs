//! The on-disk corpus index (issue 21): a folder is indexed once into the
//! cache, later runs read only what changed, a damaged or foreign cache is
//! rebuilt with a warning, two indexers take turns, the total cap is a
//! guard named with the setting that raises it, and `dra index --list` /
//! `--prune` manage what is cached.

use std::path::Path;

use super::common::TestHome;
use dra::corpus::{CachedIndex, Corpus, LoadOptions};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// A folder of four pages about tide gauges, each with its own word.
fn folder(dir: &Path) {
    write(
        dir,
        "a.md",
        "# Anchors\n\nThe anchor page mentions barnacles.\n",
    );
    write(
        dir,
        "b.md",
        "# Buoys\n\nThe buoy page mentions cormorants.\n",
    );
    write(
        dir,
        "c.md",
        "# Cables\n\nThe cable page mentions dolphins.\n",
    );
    write(dir, "d.md", "# Docks\n\nThe dock page mentions egrets.\n");
}

fn open(dir: &Path, cache: &Path) -> (Corpus, dra::corpus::Refreshed) {
    open_with(dir, cache, &LoadOptions::default())
}

fn open_with(dir: &Path, cache: &Path, opts: &LoadOptions) -> (Corpus, dra::corpus::Refreshed) {
    Corpus::open_cached(dir, &CachedIndex::for_folder(cache, dir), opts).unwrap()
}

/// The file names of the pages a search finds.
fn found(c: &Corpus, query: &str) -> Vec<String> {
    c.search(query, 5)
        .unwrap()
        .into_iter()
        .map(|h| {
            let url = c.document(h.doc).unwrap().url;
            url.rsplit('/').next().unwrap().to_string()
        })
        .collect()
}

fn counts(r: &dra::corpus::Refreshed) -> [usize; 4] {
    [r.added, r.changed, r.deleted, r.unchanged]
}

#[test]
fn a_refresh_reads_only_what_changed() {
    let home = tempfile::tempdir().unwrap();
    let (dir, cache) = (home.path().join("docs"), home.path().join("cache"));
    folder(&dir);
    let (c, r) = open(&dir, &cache);
    assert_eq!((c.len(), counts(&r)), (4, [4, 0, 0, 0]));
    assert_eq!(found(&c, "cormorants"), ["b.md"]);
    drop(c);

    // Nothing changed: nothing is read.
    let (c, r) = open(&dir, &cache);
    assert_eq!((c.len(), counts(&r), r.bytes_read), (4, [0, 0, 0, 4], 0));
    drop(c);

    // One added, one changed, one deleted.
    write(
        &dir,
        "e.md",
        "# Estuaries\n\nThe estuary page mentions flamingos.\n",
    );
    write(
        &dir,
        "b.md",
        "# Buoys\n\nThe buoy page now mentions gannets instead.\n",
    );
    std::fs::remove_file(dir.join("c.md")).unwrap();
    let (c, r) = open(&dir, &cache);
    assert_eq!((c.len(), counts(&r)), (4, [1, 1, 1, 2]));
    assert_eq!(found(&c, "flamingos"), ["e.md"]);
    assert_eq!(found(&c, "gannets"), ["b.md"]);
    assert!(found(&c, "cormorants").is_empty(), "the old text of b.md");
    assert!(found(&c, "dolphins").is_empty(), "the deleted c.md");
    let url = |f: &str| format!("file://{}", dir.join(f).display());
    assert!(c.get(&url("c.md")).is_none());
    assert!(c.get(&url("b.md")).unwrap().content.contains("gannets"));
    // The unchanged pages are still found.
    assert_eq!(found(&c, "barnacles"), ["a.md"]);
}

#[test]
fn a_damaged_or_foreign_cache_is_rebuilt_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let (dir, cache) = (home.path().join("docs"), home.path().join("cache"));
    folder(&dir);
    let entry = CachedIndex::for_folder(&cache, &dir);
    drop(open(&dir, &cache));

    let damages: [(&str, &dyn Fn()); 3] = [
        ("manifest does not parse", &|| {
            std::fs::write(entry.dir.join("manifest.json"), "{not json").unwrap()
        }),
        ("passages index", &|| {
            std::fs::write(entry.dir.join("passages/meta.json"), "garbage").unwrap()
        }),
        ("index of", &|| {
            let m = std::fs::read_to_string(entry.dir.join("manifest.json")).unwrap();
            let folder = serde_json::to_string(&dir.canonicalize().unwrap()).unwrap();
            let other = serde_json::to_string(&home.path().join("elsewhere")).unwrap();
            std::fs::write(entry.dir.join("manifest.json"), m.replace(&folder, &other)).unwrap()
        }),
    ];
    for (why, damage) in damages {
        damage();
        let (c, r) = open(&dir, &cache);
        let warned = r.warnings.join("\n");
        assert!(
            warned.contains("was not usable") && warned.contains(why),
            "{why}: {warned}"
        );
        assert_eq!((c.len(), r.added), (4, 4), "{why}");
        assert_eq!(found(&c, "egrets"), ["d.md"], "{why}");
        drop(c);
        // Rebuilt, it is trusted again.
        let (_, r) = open(&dir, &cache);
        assert_eq!((r.unchanged, r.rebuilt), (4, None), "{why}");
    }
}

#[test]
fn two_indexers_of_one_folder_take_turns() {
    let home = tempfile::tempdir().unwrap();
    let (dir, cache) = (home.path().join("docs"), home.path().join("cache"));
    for i in 0..200 {
        write(
            &dir,
            &format!("p{i:03}.md"),
            &format!("# Page {i}\n\nPage {i} mentions word{i} and the tide.\n"),
        );
    }
    let index = || {
        let (c, r) = open(&dir, &cache);
        (c.len(), counts(&r), r.waited)
    };
    let results: Vec<(usize, [usize; 4], bool)> = std::thread::scope(|s| {
        let (a, b) = (s.spawn(index), s.spawn(index));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    // Both see every page; one built the index and the other, whichever
    // came second, found it built.
    assert!(results.iter().all(|r| r.0 == 200), "{results:?}");
    let mut built: Vec<[usize; 4]> = results.iter().map(|r| r.1).collect();
    built.sort();
    assert_eq!(built, [[0, 0, 0, 200], [200, 0, 0, 0]], "{results:?}");
    let (c, _) = open(&dir, &cache);
    assert_eq!(found(&c, "word117"), ["p117.md"]);
}

#[test]
fn the_total_cap_guards_the_index_and_names_its_setting() {
    let home = tempfile::tempdir().unwrap();
    let (dir, cache) = (home.path().join("docs"), home.path().join("cache"));
    for i in 0..10 {
        write(
            &dir,
            &format!("p{i}.md"),
            &format!("# P{i}\n\n{}\n", "word ".repeat(400)),
        );
    }
    let capped = LoadOptions {
        max_total_bytes: 5000,
        ..LoadOptions::default()
    };
    let (c, r) = open_with(&dir, &cache, &capped);
    let warned = r.warnings.join("\n");
    assert!(
        c.len() < 10
            && warned.contains("DRA_CORPUS_MAX_TOTAL_BYTES")
            && warned.contains("files not read"),
        "{} pages: {warned}",
        c.len()
    );
    drop(c);
    // Raised, every file is read.
    let (c, r) = open(&dir, &cache);
    assert_eq!(c.len(), 10, "{:?}", r.warnings);
}

#[test]
fn dra_index_refreshes_lists_and_prunes() {
    let sb = TestHome::new();
    let dir = sb.dir.path().join("docs");
    folder(&dir);
    let index = |args: &[&str]| {
        let out = sb
            .dra()
            .arg("--json")
            .arg("index")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let row = |text: &str| -> serde_json::Value { serde_json::from_str(text).unwrap() };
    let dir_arg = dir.to_str().unwrap();
    let first = row(&index(&[dir_arg]));
    assert_eq!(
        (&first["documents"], &first["added"], &first["warnings"]),
        (&4.into(), &4.into(), &0.into()),
        "{first}"
    );
    let again = row(&index(&[dir_arg]));
    assert_eq!(
        (&again["unchanged"], &again["bytes_read"]),
        (&4.into(), &0.into()),
        "{again}"
    );
    let rebuilt = row(&index(&["--reindex", dir_arg]));
    assert_eq!(rebuilt["added"], 4, "{rebuilt}");

    // A run over the folder uses the same index.
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", "--no-memory", "--offline", "--corpus", dir_arg])
        .arg("What does the buoy page mention?")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = index(&["--list"]);
    let rows: Vec<serde_json::Value> = listed.lines().map(row).collect();
    assert_eq!(rows.len(), 1, "{listed}");
    assert_eq!(rows[0]["pages"], 4, "{listed}");
    assert_eq!(rows[0]["folder_exists"], true, "{listed}");

    // Its folder gone, the index is listed as such and pruned.
    std::fs::remove_dir_all(&dir).unwrap();
    let text = sb.dra().args(["index", "--list"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("folder gone") && text.contains("--prune"),
        "{text}"
    );
    let pruned = index(&["--prune"]);
    assert_eq!(pruned.lines().count(), 1, "{pruned}");
    assert!(index(&["--list"]).is_empty());
}

#[test]
fn a_folder_with_nothing_to_read_is_an_error_and_later_indexed_silently() {
    let home = tempfile::tempdir().unwrap();
    let (dir, cache) = (home.path().join("docs"), home.path().join("cache"));
    write(&dir, "image.png", "not a document");
    let err = Corpus::open_cached(
        &dir,
        &CachedIndex::for_folder(&cache, &dir),
        &LoadOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("no readable"), "{err}");
    write(
        &dir,
        "a.md",
        "# Anchors\n\nThe anchor page mentions barnacles.\n",
    );
    let (c, r) = open(&dir, &cache);
    assert_eq!((c.len(), r.added), (1, 1));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// Documents on disk that declare no type are `other`, unless the user
/// says what they are (`--source-type`, `DRA_CORPUS_SOURCE_TYPE`); a type
/// the document declares is kept.
#[test]
fn the_user_says_what_type_their_documents_are() {
    let sb = TestHome::new();
    let dir = sb.dir.path().join("docs");
    write(
        &dir,
        "gauges.md",
        "# Tide gauges\n\nThe harbour tide gauge is calibrated every March by the port engineers.\n",
    );
    write(
        &dir,
        "blog.md",
        "---\nsource_type: blog\n---\n# A blog\n\nThe harbour tide gauge is calibrated every March, a blogger says.\n",
    );
    let types = |flag: &[&str]| -> Vec<(String, String)> {
        let runs = tempfile::tempdir().unwrap();
        let out = sb
            .dra()
            .arg("--runs-dir")
            .arg(runs.path())
            .args(["-q", "ask", "--no-memory", "--offline", "--corpus"])
            .arg(&dir)
            .args(flag)
            .arg("When is the harbour tide gauge calibrated?")
            .output()
            .unwrap();
        // Answered (0) or not (8): either way the run read both pages.
        assert!(
            matches!(out.status.code(), Some(0 | 8)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = std::fs::read_dir(runs.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let sources: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("sources.json")).unwrap())
                .unwrap();
        let mut t: Vec<(String, String)> = sources
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let url = s["url"].as_str().unwrap();
                (
                    url.rsplit('/').next().unwrap().to_string(),
                    s["source_type"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        t.sort();
        t
    };
    let pair = |f: &str, t: &str| (f.to_string(), t.to_string());
    assert_eq!(
        types(&[]),
        [pair("blog.md", "blog"), pair("gauges.md", "other")]
    );
    assert_eq!(
        types(&["--source-type", "official"]),
        [pair("blog.md", "blog"), pair("gauges.md", "official")]
    );
}
