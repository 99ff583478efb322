//! A folder corpus's index on disk, in dra's cache directory: one folder per
//! corpus folder (keyed by its canonical path) holding the passages and
//! pages indexes ([`super::pages`]), a manifest of the files they came from
//! (size, modification time, the page's id and shape, what reading it
//! warned) and a lock file.
//!
//! A run re-reads only the files whose size or modification time changed,
//! drops the pages of deleted ones and starts searching at once. Files are
//! read one at a time and written through tantivy's writers, so memory stays
//! bounded however large the folder. The cache is never trusted: a manifest
//! that does not parse, comes from another version or folder, or does not
//! match the indexes' last commit means a rebuild, with a warning. Two
//! processes refreshing one folder take turns (the lock).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use tantivy::Index;

use super::index::CorpusIndex;
use super::load::{LoadOptions, PROGRESS_EVERY};
use super::pages::{self, Writers, err};
use super::stubs::Shape;
use super::{CorpusError, Loaded, Truncated, folder, walk};

/// The manifest's format; a manifest of another is rebuilt.
const FORMAT: u32 = 1;

const MANIFEST: &str = "manifest.json";
const PASSAGES: &str = "passages";
const PAGES: &str = "pages";
const LOCK: &str = "lock";

/// Where cached corpus indexes live: `corpora` in dra's cache directory.
pub fn cache_root() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "dra")?;
    Some(dirs.cache_dir().join("corpora"))
}

/// The index of one folder in a cache root, and whether to build it anew.
#[derive(Debug, Clone)]
pub struct CachedIndex {
    pub dir: PathBuf,
    /// Throw away what is cached and index every file again.
    pub reindex: bool,
}

impl CachedIndex {
    /// The index of `folder` under `root` (its canonical path names it).
    pub fn for_folder(root: &Path, folder: &Path) -> CachedIndex {
        let canonical = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        let mut h = Sha256::new();
        h.update(canonical.as_os_str().as_encoded_bytes());
        let name: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        CachedIndex {
            dir: root.join(name),
            reindex: false,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Manifest {
    format: u32,
    /// dra's version: another version may index differently.
    version: String,
    folder: PathBuf,
    /// The caps the files were read under (document, total).
    caps: [u64; 2],
    /// The indexes' last commits (passages, pages) this manifest describes.
    opstamps: (u64, u64),
    next_id: u64,
    /// When it was last brought up to date (seconds since 1970).
    refreshed: u64,
    /// By path under the folder.
    files: BTreeMap<String, FileEntry>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct FileEntry {
    size: u64,
    /// Nanoseconds since 1970.
    modified: u64,
    /// Bytes read of it (what counts against the total cap).
    read: u64,
    /// Its page; none when it was skipped.
    page: Option<PageEntry>,
    /// What reading it warned, or why it was skipped.
    warnings: Vec<String>,
    truncated: Vec<Truncated>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct PageEntry {
    id: u64,
    /// The normalised URL.
    url: String,
    shape: Shape,
}

/// What a refresh did and what to tell the user.
#[derive(Debug, Default, Clone)]
pub struct Refreshed {
    pub warnings: Vec<String>,
    pub truncated: Vec<Truncated>,
    /// Files indexed for the first time, indexed again, dropped, kept.
    pub added: usize,
    pub changed: usize,
    pub deleted: usize,
    pub unchanged: usize,
    /// Why the cached index was thrown away, when it was.
    pub rebuilt: Option<String>,
    /// Whether another process held the index and this one waited.
    pub waited: bool,
    /// Bytes read from files this time.
    pub bytes_read: u64,
    pub seconds: f64,
}

/// A file's size and modification time.
fn stat(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    let modified = m
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((m.len(), u64::try_from(modified).unwrap_or(u64::MAX)))
}

/// Every file's [`stat`], on as many threads as there are cores: a
/// refresh of a 50,000-file folder spends most of its time here.
fn stat_all(files: &[&PathBuf]) -> Vec<Option<(u64, u64)>> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = files
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|p| stat(p)).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn io(dir: &Path) -> impl Fn(std::io::Error) -> CorpusError + '_ {
    move |error| CorpusError::Read {
        path: dir.to_path_buf(),
        error,
    }
}

/// Takes the index's lock, waiting for another process that holds it.
fn lock(dir: &Path, refreshed: &mut Refreshed) -> Result<std::fs::File, CorpusError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK))
        .map_err(io(dir))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            refreshed.waited = true;
            tracing::info!("another dra is indexing this folder: waiting for it");
            file.lock().map_err(io(dir))?;
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(dir)(e)),
    }
    Ok(file)
}

/// The cached manifest and indexes, when they can be trusted; else why not
/// (`None` when there is nothing cached).
fn open_cached(
    dir: &Path,
    folder: &Path,
    caps: [u64; 2],
) -> Result<Option<(Manifest, Index, Index)>, String> {
    let text = match std::fs::read_to_string(dir.join(MANIFEST)) {
        Ok(t) => t,
        // Nothing cached, or a first build that never finished (it wrote no
        // manifest): built from scratch, nothing to warn about.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("its manifest is not readable: {e}")),
    };
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("its manifest does not parse: {e}"))?;
    if m.format != FORMAT || m.version != env!("CARGO_PKG_VERSION") {
        return Err(format!("it was written by dra {}", m.version));
    }
    if m.folder != folder {
        return Err(format!("it is the index of {}", m.folder.display()));
    }
    if m.caps != caps {
        return Err("the corpus caps changed".into());
    }
    let open = |name: &str| {
        Index::open_in_dir(dir.join(name)).map_err(|e| format!("its {name} index: {e}"))
    };
    let (passages, pages) = (open(PASSAGES)?, open(PAGES)?);
    pages::PassageFields::of(&passages).map_err(|e| e.to_string())?;
    pages::PageFields::of(&pages).map_err(|e| e.to_string())?;
    let stamp = |i: &Index| i.load_metas().map(|m| m.opstamp).map_err(|e| e.to_string());
    if (stamp(&passages)?, stamp(&pages)?) != m.opstamps {
        return Err("its manifest does not match its last commit".into());
    }
    Ok(Some((m, passages, pages)))
}

/// A new, empty index in `dir` (anything there before is removed).
fn create(
    dir: &Path,
    folder: &Path,
    caps: [u64; 2],
) -> Result<(Manifest, Index, Index), CorpusError> {
    for name in [PASSAGES, PAGES, MANIFEST] {
        let path = dir.join(name);
        if path.is_dir() {
            std::fs::remove_dir_all(&path).map_err(io(&path))?;
        } else if path.exists() {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    let make = |name: &str, schema| {
        let path = dir.join(name);
        std::fs::create_dir_all(&path).map_err(io(&path))?;
        Index::create_in_dir(&path, schema).map_err(err)
    };
    let passages = make(PASSAGES, pages::passage_schema())?;
    let pages = make(PAGES, pages::page_schema())?;
    let manifest = Manifest {
        format: FORMAT,
        version: env!("CARGO_PKG_VERSION").into(),
        folder: folder.to_path_buf(),
        caps,
        opstamps: (0, 0),
        next_id: 0,
        refreshed: now(),
        files: BTreeMap::new(),
    };
    Ok((manifest, passages, pages))
}

/// Writes the manifest whole, then renames it over the old one.
fn save(dir: &Path, m: &Manifest) -> Result<(), CorpusError> {
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    serde_json::to_writer(std::io::BufWriter::new(&mut f), m).map_err(err)?;
    f.flush().map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, dir.join(MANIFEST)).map_err(io(dir))
}

/// Brings the index of `folder` in `cache` up to date with the folder and
/// opens it for search.
pub fn refresh(
    folder: &Path,
    cache: &CachedIndex,
    opts: &LoadOptions,
) -> Result<(CorpusIndex, Refreshed), CorpusError> {
    let started = Instant::now();
    let canonical = folder.canonicalize().map_err(io(folder))?;
    std::fs::create_dir_all(&cache.dir).map_err(io(&cache.dir))?;
    let mut refreshed = Refreshed::default();
    let _lock = lock(&cache.dir, &mut refreshed)?;
    let caps = [opts.max_document_bytes, opts.max_total_bytes];
    let cached = if cache.reindex {
        None
    } else {
        open_cached(&cache.dir, &canonical, caps).unwrap_or_else(|why| {
            refreshed.rebuilt = Some(why);
            None
        })
    };
    let (mut manifest, passages, pages) = match cached {
        Some(c) => c,
        None => create(&cache.dir, &canonical, caps)?,
    };
    if let Some(why) = &refreshed.rebuilt {
        refreshed.warnings.push(format!(
            "the cached index of {} was not usable ({why}): it is built again",
            folder.display()
        ));
    }
    let mut update = Update {
        folder,
        opts,
        manifest: &mut manifest,
        passages: &passages,
        pages: &pages,
        writers: None,
        refreshed: &mut refreshed,
    };
    let changed = update.run()?;
    if let Some(mut writers) = update.writers.take() {
        manifest.opstamps = writers.commit()?;
        writers.finish()?;
    }
    if changed {
        manifest.refreshed = now();
        save(&cache.dir, &manifest)?;
    }
    let stubs = super::stubs::stubs(
        manifest
            .files
            .values()
            .filter_map(|f| f.page.as_ref())
            .map(|p| (p.id, &p.shape)),
    );
    let index = CorpusIndex::open(passages, pages, stubs)?;
    refreshed.seconds = started.elapsed().as_secs_f64();
    Ok((index, refreshed))
}

/// Passes on what reading a file warned; 1 when it was skipped.
fn tell(refreshed: &mut Refreshed, entry: &FileEntry) -> usize {
    refreshed.warnings.extend(entry.warnings.iter().cloned());
    refreshed.truncated.extend(entry.truncated.iter().cloned());
    usize::from(entry.page.is_none())
}

/// One pass over the folder: what is new or changed is read and indexed,
/// what is gone is dropped.
struct Update<'a> {
    folder: &'a Path,
    opts: &'a LoadOptions,
    manifest: &'a mut Manifest,
    passages: &'a Index,
    pages: &'a Index,
    /// Made at the first change.
    writers: Option<Writers>,
    refreshed: &'a mut Refreshed,
}

impl Update<'_> {
    fn writers(&mut self) -> Result<&mut Writers, CorpusError> {
        if self.writers.is_none() {
            self.writers = Some(Writers::new(self.passages, self.pages)?);
        }
        self.writers
            .as_mut()
            .ok_or_else(|| CorpusError::Index("the index writers were not made".into()))
    }

    /// Returns whether anything changed.
    fn run(&mut self) -> Result<bool, CorpusError> {
        let walked = walk::walk(self.folder, &self.opts.skip_dirs);
        self.refreshed.warnings.extend(walked.warnings);
        let mut skipped = walked.unreadable;
        let files: Vec<&PathBuf> = walked
            .files
            .iter()
            .filter(|p| folder::kind_of(p).is_some())
            .collect();
        let root = self.folder;
        let key = |p: &Path| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        };
        let present: std::collections::HashSet<String> = files.iter().map(|p| key(p)).collect();
        let mut changed = self.drop_gone(&present)? || self.refreshed.rebuilt.is_some();
        // Who holds each URL (of two files with one URL the first is
        // kept): made when the first file is read.
        let mut owners: Option<HashMap<String, String>> = None;
        let stats = stat_all(&files);
        let mut budget = self.opts.max_total_bytes;
        for (n, (path, now)) in files.iter().zip(stats).enumerate() {
            if let Some(progress) = &self.opts.progress
                && n > 0
                && n % PROGRESS_EVERY == 0
            {
                progress(n, files.len(), self.refreshed.bytes_read);
            }
            let k = key(path);
            if let Some(entry) = self.manifest.files.get(&k)
                && now == Some((entry.size, entry.modified))
            {
                budget = budget.saturating_sub(entry.read);
                skipped += tell(self.refreshed, entry);
                self.refreshed.unchanged += 1;
                continue;
            }
            if budget == 0 {
                let left = files.len() - n;
                self.refreshed.warnings.push(format!(
                    "stopped indexing after {n} files: the corpus reached its total cap of {} bytes; {left} files not read (raise DRA_CORPUS_MAX_TOTAL_BYTES to read them)",
                    self.opts.max_total_bytes
                ));
                skipped += left;
                break;
            }
            changed = true;
            let owners = owners.get_or_insert_with(|| self.owners());
            if let Some(old) = self.manifest.files.remove(&k) {
                self.writers()?.delete_file(&k);
                if let Some(p) = old.page {
                    owners.remove(&p.url);
                }
                self.refreshed.changed += 1;
            } else {
                self.refreshed.added += 1;
            }
            let entry = self.read(path, &k, now.unwrap_or_default(), &mut budget, owners)?;
            skipped += tell(self.refreshed, &entry);
            self.manifest.files.insert(k, entry);
        }
        self.summary(skipped)?;
        Ok(changed)
    }

    /// The file holding each page's URL.
    fn owners(&self) -> HashMap<String, String> {
        let mut owners = HashMap::new();
        for (k, f) in &self.manifest.files {
            if let Some(p) = &f.page {
                owners.insert(p.url.clone(), k.clone());
            }
        }
        owners
    }

    /// Drops the pages of files no longer in the folder; whether there were any.
    fn drop_gone(
        &mut self,
        present: &std::collections::HashSet<String>,
    ) -> Result<bool, CorpusError> {
        let gone: Vec<String> = self
            .manifest
            .files
            .keys()
            .filter(|k| !present.contains(*k))
            .cloned()
            .collect();
        for k in &gone {
            self.writers()?.delete_file(k);
            self.manifest.files.remove(k);
            self.refreshed.deleted += 1;
        }
        Ok(!gone.is_empty())
    }

    /// A folder with no page is an error; skipped files are summed up
    /// ([`super::load::close_folder`]).
    fn summary(&mut self, skipped: usize) -> Result<(), CorpusError> {
        let pages = self
            .manifest
            .files
            .values()
            .filter(|f| f.page.is_some())
            .count();
        super::load::close_folder(self.folder, pages, skipped, &mut self.refreshed.warnings)
    }

    /// Reads one file and indexes its page; its manifest entry.
    fn read(
        &mut self,
        path: &Path,
        k: &str,
        (size, modified): (u64, u64),
        budget: &mut u64,
        owners: &mut HashMap<String, String>,
    ) -> Result<FileEntry, CorpusError> {
        let mut loaded = Loaded::default();
        let before = *budget;
        let doc = folder::read_file(path, self.opts.max_document_bytes, budget, &mut loaded);
        let read = before - *budget;
        self.refreshed.bytes_read += read;
        let mut entry = FileEntry {
            size,
            modified,
            read,
            page: None,
            warnings: Vec::new(),
            truncated: loaded.truncated,
        };
        let doc = match doc {
            Ok(doc) => doc,
            Err(e) => {
                entry.warnings = loaded.warnings;
                entry
                    .warnings
                    .push(format!("skipped {}: {e}", path.display()));
                return Ok(entry);
            }
        };
        entry.warnings = loaded.warnings;
        let url = crate::document::normalize_url(&doc.url);
        if let Some(first) = owners.get(&url) {
            entry.warnings.push(format!(
                "skipped {}: its url {} is already used by {} (the first by path is kept)",
                path.display(),
                doc.url,
                self.folder.join(first).display()
            ));
            return Ok(entry);
        }
        let id = self.manifest.next_id;
        self.manifest.next_id += 1;
        let shape = self.writers()?.add(id, k, &doc)?;
        owners.insert(url.clone(), k.to_string());
        entry.page = Some(PageEntry { id, url, shape });
        Ok(entry)
    }
}

/// A cached index, as `dra index --list` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    pub folder: PathBuf,
    pub dir: PathBuf,
    pub files: usize,
    pub pages: usize,
    /// Bytes on disk.
    pub bytes: u64,
    /// Seconds since 1970.
    pub refreshed: u64,
    /// Whether its folder still exists.
    pub folder_exists: bool,
}

fn disk_bytes(dir: &Path) -> u64 {
    walkdir_bytes(dir).unwrap_or(0)
}

fn walkdir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            total += walkdir_bytes(&e.path())?;
        } else if t.is_file() {
            total += e.metadata()?.len();
        }
    }
    Ok(total)
}

/// Every index under `root`; ones whose manifest does not read are listed
/// with an empty folder path.
pub fn list(root: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<Listed> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| {
            let dir = e.path();
            let manifest: Option<Manifest> = std::fs::read_to_string(dir.join(MANIFEST))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
            let (folder, files, pages, refreshed) = match &manifest {
                Some(m) => (
                    m.folder.clone(),
                    m.files.len(),
                    m.files.values().filter(|f| f.page.is_some()).count(),
                    m.refreshed,
                ),
                None => (PathBuf::new(), 0, 0, 0),
            };
            Listed {
                folder_exists: manifest.is_some() && folder.is_dir(),
                folder,
                bytes: disk_bytes(&dir),
                dir,
                files,
                pages,
                refreshed,
            }
        })
        .collect();
    out.sort_by(|a, b| a.folder.cmp(&b.folder).then(a.dir.cmp(&b.dir)));
    out
}

/// Removes the indexes under `root` whose folder is gone (or whose
/// manifest does not read); an index another process holds is left.
/// Returns what was removed.
pub fn prune(root: &Path) -> Result<Vec<Listed>, CorpusError> {
    let mut removed = Vec::new();
    for l in list(root) {
        if l.folder_exists {
            continue;
        }
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(l.dir.join(LOCK));
        if let Ok(f) = &lock
            && f.try_lock().is_err()
        {
            continue;
        }
        std::fs::remove_dir_all(&l.dir).map_err(io(&l.dir))?;
        removed.push(l);
    }
    Ok(removed)
}
