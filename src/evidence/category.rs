//! What a page says it is about, beyond its words: the category signals
//! (breadcrumbs, `product:category`, `og:type`, JSON-LD `@type`,
//! `category`, `applicationCategory`, `brand`, URL path segments), the
//! country signals (JSON-LD addresses, geo and contact meta tags,
//! `<address>`), and the legal names a page gives the entity. The identity
//! gate reads them to tell a same-named product in another industry, a
//! namesake abroad or another legal form from the entity researched.
//!
//! Category overlap is deliberately coarse: a category and an industry
//! agree when they share a content word (plurals folded) or a word family
//! of [`FAMILIES`] (`gpu` and `compute` are both cloud words). Words that
//! say nothing about an industry ([`GENERIC`]: `software`, `reviews`,
//! `home`, news sections) never count, so a page with only such signals
//! has no category to contradict anything.

use std::collections::BTreeSet;

use dom_query::Document;
use serde_json::Value;

use super::metadata::{JsonLd, meta, types_of};

/// Where a signal was read, for the rejection reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    pub from: &'static str,
    pub value: String,
}

/// A page's category, country and legal-name signals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageSignals {
    pub categories: Vec<Signal>,
    pub brands: Vec<String>,
    pub countries: Vec<Signal>,
    /// Legal names the markup gives the entity (JSON-LD `legalName`).
    pub legal_names: Vec<String>,
}

/// The most signals of one kind kept, and the longest value.
const MAX_SIGNALS: usize = 24;
const MAX_VALUE_CHARS: usize = 120;

/// Word families: words that name one industry. A category and an industry
/// agree when they share a word, or when each has a word of one family.
pub const FAMILIES: &[(&str, &[&str])] = &[
    (
        "cloud computing",
        &[
            "cloud",
            "gpu",
            "gpus",
            "compute",
            "computing",
            "hosting",
            "iaas",
            "paas",
            "infrastructure",
            "server",
            "datacenter",
            "datacentre",
            "vps",
            "kubernetes",
            "inference",
            "hpc",
            "serverless",
            "virtualization",
            "virtualisation",
        ],
    ),
    (
        "payments",
        &[
            "payment",
            "gateway",
            "fintech",
            "checkout",
            "acquiring",
            "remittance",
            "wallet",
            "upi",
            "card",
            "merchant",
            "pos",
            "money",
            "transfer",
            "finance",
            "financial",
            "bank",
            "banking",
        ],
    ),
    (
        "banking and finance",
        &[
            "bank",
            "banking",
            "finance",
            "financial",
            "lending",
            "loan",
            "credit",
            "insurance",
            "investment",
            "fintech",
            "nbfc",
        ],
    ),
    (
        "accounting",
        &[
            "accounting",
            "bookkeeping",
            "invoicing",
            "invoice",
            "tax",
            "payroll",
            "erp",
            "expense",
            "ledger",
        ],
    ),
    (
        "logistics",
        &[
            "logistics",
            "freight",
            "trucking",
            "truck",
            "shipping",
            "transport",
            "transportation",
            "courier",
            "delivery",
            "haulage",
            "chain",
            "warehousing",
            "warehouse",
            "cargo",
            "fleet",
        ],
    ),
    (
        "artificial intelligence",
        &[
            "ai",
            "ml",
            "llm",
            "intelligence",
            "learning",
            "model",
            "inference",
            "gpu",
            "gpus",
        ],
    ),
    (
        "security",
        &[
            "security",
            "cybersecurity",
            "antivirus",
            "firewall",
            "vpn",
            "identity",
            "encryption",
        ],
    ),
    (
        "health",
        &[
            "health",
            "healthcare",
            "medical",
            "clinic",
            "hospital",
            "pharmacy",
            "pharma",
            "wellness",
        ],
    ),
    (
        "food",
        &[
            "food",
            "restaurant",
            "cafe",
            "bakery",
            "grocery",
            "catering",
            "dining",
        ],
    ),
    (
        "marketing",
        &[
            "marketing",
            "crm",
            "advertising",
            "seo",
            "email",
            "campaign",
            "sales",
        ],
    ),
    (
        "education",
        &[
            "education",
            "school",
            "university",
            "course",
            "learning",
            "training",
        ],
    ),
    (
        "travel",
        &["travel", "hotel", "airline", "booking", "tourism", "flight"],
    ),
];

/// Words that say nothing about an industry: site chrome, kinds of page,
/// news sections, schema.org's generic types.
const GENERIC: &[&str] = &[
    "home",
    "homepage",
    "index",
    "main",
    "page",
    "pages",
    "site",
    "web",
    "website",
    "www",
    "category",
    "categories",
    "all",
    "top",
    "best",
    "new",
    "more",
    "other",
    "en",
    "us",
    "uk",
    "review",
    "reviews",
    "rating",
    "ratings",
    "compare",
    "comparison",
    "alternatives",
    "vs",
    "pricing",
    "price",
    "prices",
    "features",
    "overview",
    "details",
    "about",
    "product",
    "products",
    "software",
    "app",
    "apps",
    "application",
    "applications",
    "tool",
    "tools",
    "service",
    "services",
    "solution",
    "solutions",
    "platform",
    "platforms",
    "business",
    "businesses",
    "company",
    "companies",
    "enterprise",
    "industry",
    "industries",
    "technology",
    "technologies",
    "tech",
    "news",
    "article",
    "articles",
    "blog",
    "blogs",
    "post",
    "posts",
    "posting",
    "story",
    "stories",
    "opinion",
    "analysis",
    "world",
    "local",
    "markets",
    "market",
    "economy",
    "startups",
    "startup",
    "science",
    "lifestyle",
    "video",
    "videos",
    "thing",
    "creative",
    "work",
    "organization",
    "organisation",
    "corporation",
    "person",
    "item",
    "list",
    "breadcrumb",
    "webpage",
    "website",
    "collection",
    "search",
    "results",
    "and",
    "or",
    "the",
    "of",
    "for",
    "in",
    "to",
    "a",
    "an",
    "with",
    "by",
    "on",
    "local",
    "online",
    "free",
    "guide",
    "guides",
    "directory",
    "listing",
    "listings",
    "profile",
    "profiles",
    "resources",
    "docs",
    "documentation",
    "help",
    "support",
    "faq",
    "object",
    "type",
    "general",
    "misc",
];

/// Folds one word: lowercase letters and digits, a plural `s` dropped.
fn fold_word(w: &str) -> String {
    let w: String = w
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let n = w.chars().count();
    if n > 4 && w.ends_with("ies") {
        format!("{}y", &w[..w.len() - 3])
    } else if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        w[..w.len() - 1].to_string()
    } else {
        w
    }
}

/// Splits `SoftwareApplication` and `accounting-software` into words.
fn words_of(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        spaced.push(if c.is_alphanumeric() { c } else { ' ' });
    }
    spaced
        .split_whitespace()
        .map(fold_word)
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_generic(w: &str) -> bool {
    GENERIC.iter().any(|g| fold_word(g) == w) || w.chars().all(|c| c.is_ascii_digit())
}

/// The content words of a category or industry: folded, generic words out.
pub fn terms(text: &str) -> BTreeSet<String> {
    words_of(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 2 && !is_generic(w))
        .collect()
}

/// The families a set of terms belongs to.
fn families(terms: &BTreeSet<String>) -> BTreeSet<&'static str> {
    FAMILIES
        .iter()
        .filter(|(_, words)| words.iter().any(|w| terms.contains(&fold_word(w))))
        .map(|(name, _)| *name)
        .collect()
}

/// Whether two term sets share a word or a word family.
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    a.intersection(b).next().is_some() || families(a).intersection(&families(b)).next().is_some()
}

/// Whether a word belongs to some family (a URL segment counts as a
/// category only then: most paths name pages, not industries).
fn is_industry_word(w: &str) -> bool {
    FAMILIES
        .iter()
        .any(|(_, words)| words.iter().any(|x| fold_word(x) == w))
}

/// The category signals of a URL: path segments before the last (the last
/// names the page) that carry a word of some industry family.
pub fn url_categories(url: &str) -> Vec<Signal> {
    let path = url
        .split_once("://")
        .map(|(_, r)| r)
        .unwrap_or(url)
        .split(['?', '#'])
        .next()
        .unwrap_or("");
    let segments: Vec<&str> = path.split('/').skip(1).filter(|s| !s.is_empty()).collect();
    let Some((_, dirs)) = segments.split_last() else {
        return Vec::new();
    };
    dirs.iter()
        .filter(|s| terms(s).iter().any(|w| is_industry_word(w)))
        .map(|s| Signal {
            from: "URL path",
            value: s.replace(['-', '_'], " "),
        })
        .collect()
}

fn bounded(s: &str) -> Option<String> {
    let s: String = s
        .chars()
        .filter(|c| !super::clean::is_invisible(*c) && !c.is_control())
        .take(MAX_VALUE_CHARS)
        .collect();
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

fn push(list: &mut Vec<Signal>, from: &'static str, value: &str) {
    if let Some(v) = bounded(value)
        && list.len() < MAX_SIGNALS
        && !list.iter().any(|s| s.value == v)
    {
        list.push(Signal { from, value: v });
    }
}

/// Strings of a JSON-LD value: a string, a list of strings, or objects'
/// `name`s.
fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => list.iter().flat_map(|x| strings(Some(x))).collect(),
        Some(Value::Object(o)) => strings(o.get("name")),
        _ => Vec::new(),
    }
}

/// Whether a JSON-LD item names the entity (its `name`, `legalName` or
/// `alternateName` holds the entity's name without its legal form).
fn names_entity(o: &serde_json::Map<String, Value>, base: &str) -> bool {
    !base.is_empty()
        && ["name", "legalName", "alternateName"]
            .iter()
            .flat_map(|k| strings(o.get(*k)))
            .any(|n| format!(" {} ", fold_words(&n)).contains(&format!(" {base} ")))
}

/// Lowercase words separated by single spaces.
pub fn fold_words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads the signals of an HTML page. `entity_base` is the entity's name
/// without its legal form, folded ([`fold_words`]): addresses and legal
/// names are read only from JSON-LD items and `<address>` elements that
/// name it, so a review site's own address does not count.
pub fn read_html(html: &str, entity_base: &str) -> PageSignals {
    let doc = Document::from(html);
    let mut s = PageSignals::default();
    breadcrumbs_html(&doc, &mut s.categories);
    for key in ["product:category", "og:type"] {
        if let Some(v) = meta(&doc, key) {
            let from = if key == "og:type" {
                "og:type"
            } else {
                "product:category"
            };
            push(&mut s.categories, from, &v.replace(['.', '_', ':'], " "));
        }
    }
    for key in [
        "og:country-name",
        "business:contact_data:country_name",
        "geo.country",
        "geo.region",
        "geo.placename",
    ] {
        if let Some(v) = meta(&doc, key) {
            // `geo.region` is `DE-BY`: the country is its first part.
            let v = if key == "geo.region" {
                v.split('-').next().unwrap_or("").to_string()
            } else {
                v
            };
            push(&mut s.countries, "meta tags", &v);
        }
    }
    let ld = JsonLd::from_document(&doc);
    for item in &ld.items {
        let Some(o) = item.as_object() else { continue };
        let types = types_of(o);
        if types.iter().any(|t| t == "BreadcrumbList") {
            if let Some(Value::Array(list)) = o.get("itemListElement") {
                for el in list {
                    let name = el.get("name").and_then(Value::as_str).or_else(|| {
                        el.get("item")
                            .and_then(|i| i.get("name"))
                            .and_then(Value::as_str)
                    });
                    if let Some(n) = name {
                        push(&mut s.categories, "breadcrumbs", n);
                    }
                }
            }
            continue;
        }
        for t in &types {
            push(&mut s.categories, "JSON-LD @type", t);
        }
        for key in ["category", "applicationCategory", "applicationSubCategory"] {
            for v in strings(o.get(key)) {
                push(&mut s.categories, "JSON-LD category", &v);
            }
        }
        // What the page is about (`about`, `mainEntity`), when that names
        // the entity, files the entity itself under its category: a blog
        // post about "CurbSpec Pro parking sensor" in "Parking occupancy
        // sensors".
        for key in ["about", "mainEntity"] {
            let subjects: Vec<&serde_json::Map<String, Value>> = match o.get(key) {
                Some(Value::Array(list)) => list.iter().filter_map(Value::as_object).collect(),
                Some(Value::Object(one)) => vec![one],
                _ => Vec::new(),
            };
            for about in subjects
                .into_iter()
                .filter(|a| names_entity(a, entity_base))
            {
                for t in types_of(about) {
                    push(&mut s.categories, "JSON-LD about", &t);
                }
                for key in ["category", "applicationCategory", "applicationSubCategory"] {
                    for v in strings(about.get(key)) {
                        push(&mut s.categories, "JSON-LD about", &v);
                    }
                }
            }
        }
        for b in strings(o.get("brand")) {
            if let Some(b) = bounded(&b)
                && s.brands.len() < MAX_SIGNALS
                && !s.brands.contains(&b)
            {
                s.brands.push(b);
            }
        }
        if names_entity(o, entity_base) {
            for l in strings(o.get("legalName")) {
                if let Some(l) = bounded(&l) {
                    s.legal_names.push(l);
                }
            }
            let addresses: Vec<&Value> = match o.get("address") {
                Some(Value::Array(list)) => list.iter().collect(),
                Some(other) => vec![other],
                None => Vec::new(),
            };
            for a in addresses {
                if let Value::String(text) = a {
                    push(&mut s.countries, "JSON-LD address", text);
                }
                for c in strings(a.get("addressCountry")) {
                    push(&mut s.countries, "JSON-LD address", &c);
                }
            }
        }
    }
    if !entity_base.is_empty() {
        for node in doc.select("address").nodes() {
            let text = node.text().to_string();
            if format!(" {} ", fold_words(&text)).contains(&format!(" {entity_base} ")) {
                push(&mut s.countries, "address", &text);
            }
        }
    }
    s
}

/// HTML breadcrumbs: an element whose class, id or `aria-label` says
/// breadcrumb, or microdata `BreadcrumbList`; each item's text.
fn breadcrumbs_html(doc: &Document, out: &mut Vec<Signal>) {
    for node in doc.select("nav, ol, ul, div, p").nodes() {
        let marked = ["class", "id", "aria-label", "itemtype"].iter().any(|a| {
            node.attr(a)
                .is_some_and(|v| v.to_ascii_lowercase().contains("breadcrumb"))
        });
        if !marked {
            continue;
        }
        let sel = dom_query::Selection::from(*node);
        let items = sel.select("li");
        let items = if items.exists() {
            items
        } else {
            sel.select("a")
        };
        if items.exists() {
            for item in items.nodes() {
                push(out, "breadcrumbs", &item.text());
            }
        } else {
            for part in node.text().split(['>', '›', '»', '/', '|']) {
                push(out, "breadcrumbs", part);
            }
        }
        // The first breadcrumb trail is the page's.
        return;
    }
}

/// Countries by ISO 3166 code with the names and short forms pages use.
const COUNTRIES: &[(&str, &[&str])] = &[
    ("IN", &["india", "bharat", "ind"]),
    (
        "GB",
        &[
            "united kingdom",
            "uk",
            "great britain",
            "britain",
            "england",
            "scotland",
            "wales",
            "northern ireland",
            "gbr",
        ],
    ),
    (
        "US",
        &[
            "united states",
            "united states of america",
            "usa",
            "america",
            "u s",
            "u s a",
        ],
    ),
    ("DE", &["germany", "deutschland", "deu"]),
    ("FR", &["france", "fra"]),
    ("IE", &["ireland", "irl"]),
    ("NL", &["netherlands", "the netherlands", "holland", "nld"]),
    ("ES", &["spain", "espana", "esp"]),
    ("IT", &["italy", "italia", "ita"]),
    ("CH", &["switzerland", "schweiz", "suisse", "che"]),
    ("AT", &["austria", "osterreich", "aut"]),
    ("SE", &["sweden", "sverige", "swe"]),
    ("NO", &["norway", "norge", "nor"]),
    ("DK", &["denmark", "danmark", "dnk"]),
    ("FI", &["finland", "suomi", "fin"]),
    ("PL", &["poland", "polska", "pol"]),
    ("PT", &["portugal", "prt"]),
    ("BE", &["belgium", "bel"]),
    ("CA", &["canada", "can"]),
    ("AU", &["australia", "aus"]),
    ("NZ", &["new zealand", "nzl"]),
    ("SG", &["singapore", "sgp"]),
    ("MY", &["malaysia", "mys"]),
    ("AE", &["united arab emirates", "uae", "are"]),
    ("JP", &["japan", "jpn"]),
    ("CN", &["china", "chn"]),
    ("KR", &["south korea", "korea", "kor"]),
    ("BR", &["brazil", "brasil", "bra"]),
    ("MX", &["mexico", "mex"]),
    ("ZA", &["south africa", "zaf"]),
    ("NG", &["nigeria", "nga"]),
    ("KE", &["kenya", "ken"]),
    ("PK", &["pakistan", "pak"]),
    ("BD", &["bangladesh", "bgd"]),
    ("LK", &["sri lanka", "lka"]),
    ("NP", &["nepal", "npl"]),
    ("ID", &["indonesia", "idn"]),
    ("PH", &["philippines", "phl"]),
    ("VN", &["vietnam", "viet nam", "vnm"]),
    ("TH", &["thailand", "tha"]),
    ("IL", &["israel", "isr"]),
    ("TR", &["turkey", "turkiye", "tur"]),
    ("EE", &["estonia", "est"]),
    ("LU", &["luxembourg", "lux"]),
];

/// The ISO code of a country named anywhere in `text` (a code alone, or a
/// name or short form as whole words); the first found.
pub fn countries_in(text: &str) -> BTreeSet<&'static str> {
    let folded = format!(" {} ", fold_words(text));
    let trimmed = text.trim();
    let mut out = BTreeSet::new();
    for (code, names) in COUNTRIES {
        let as_code = trimmed.len() == 2 && trimmed.eq_ignore_ascii_case(code);
        if as_code || names.iter().any(|n| folded.contains(&format!(" {n} "))) {
            out.insert(*code);
        }
    }
    out
}

/// Legal forms by class: forms of one class are one legal form
/// (`Ltd` = `Limited` = `Pvt Ltd`).
const LEGAL_FORMS: &[(&str, &[&str])] = &[
    ("Ltd", &["ltd", "limited", "pvt", "private"]),
    ("Inc.", &["inc", "incorporated"]),
    ("LLC", &["llc"]),
    ("LLP", &["llp"]),
    ("GmbH", &["gmbh"]),
    ("AG", &["ag"]),
    ("SA", &["sa", "sas"]),
    ("SARL", &["sarl"]),
    ("SRL", &["srl"]),
    ("SpA", &["spa"]),
    ("plc", &["plc"]),
    ("Corp.", &["corp", "corporation"]),
    ("BV", &["bv"]),
    ("NV", &["nv"]),
    ("Oy", &["oy"]),
    ("AB", &["ab"]),
    ("Pty", &["pty"]),
    ("Pte", &["pte"]),
    ("KK", &["kk"]),
];

/// The legal form class of a folded word.
pub fn legal_form(word: &str) -> Option<&'static str> {
    LEGAL_FORMS
        .iter()
        .find(|(_, words)| words.contains(&word))
        .map(|(class, _)| *class)
}

/// A name split into its folded base and its legal form, if it has one
/// ("Orla Freight Ltd" → ("orla freight", Some("Ltd"))).
pub fn split_legal_form(name: &str) -> (String, Option<&'static str>) {
    let folded = fold_words(name);
    let mut words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    let mut form = None;
    while words.len() > 1
        && let Some(f) = words.last().and_then(|w| legal_form(w))
    {
        form = Some(f);
        words.pop();
    }
    (words.join(" "), form)
}

/// The legal forms a text gives `base` (the folded name without its form):
/// the form word right after each mention.
pub fn legal_forms_after(base: &str, text: &str) -> BTreeSet<&'static str> {
    let folded = fold_words(text);
    let words: Vec<&str> = folded.split(' ').collect();
    let base_words: Vec<&str> = base.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out = BTreeSet::new();
    if base_words.is_empty() {
        return out;
    }
    for i in 0..words.len().saturating_sub(base_words.len()) {
        if words[i..i + base_words.len()] == base_words[..]
            && let Some(f) = words.get(i + base_words.len()).and_then(|w| legal_form(w))
        {
            out.insert(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_drop_generic_words_and_fold_plurals() {
        assert_eq!(
            terms("Home > Software > Accounting Software"),
            ["accounting".to_string()].into()
        );
        assert_eq!(
            terms("SoftwareApplication"),
            BTreeSet::new(),
            "a generic schema type is no category"
        );
        assert_eq!(
            terms("GPU Clouds"),
            ["cloud", "gpu"].map(String::from).into()
        );
    }

    #[test]
    fn overlap_by_word_or_family() {
        let gpu = terms("GPU cloud");
        assert!(overlap(&gpu, &terms("Cloud Infrastructure")));
        assert!(overlap(&gpu, &terms("Compute")), "one family");
        assert!(!overlap(&gpu, &terms("Accounting Software")));
        assert!(overlap(&terms("payment gateway"), &terms("Payments")));
        assert!(!overlap(&terms("payment gateway"), &terms("Restaurants")));
    }

    #[test]
    fn url_segments_name_a_category_only_with_an_industry_word() {
        let u = url_categories("https://reviews.example/accounting-software/nimbus-review");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].value, "accounting software");
        assert!(url_categories("https://padmapay.example/pricing").is_empty());
        assert!(url_categories("https://news.example/2024/03/padmapay").is_empty());
    }

    #[test]
    fn reads_breadcrumbs_meta_and_json_ld() {
        let html = r#"<html><head>
<meta property="product:category" content="Accounting Software">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"name":"Home"},{"@type":"ListItem","position":2,"item":{"name":"Finance Tools"}}]},
 {"@type":"SoftwareApplication","name":"Nimbus","applicationCategory":"BusinessApplication","brand":{"@type":"Brand","name":"Nimbus Books"}},
 {"@type":"Organization","name":"Nimbus GmbH","legalName":"Nimbus GmbH","address":{"@type":"PostalAddress","addressCountry":"DE"}}]}
</script></head><body><nav aria-label="Breadcrumb"><ol><li><a href="/">Home</a></li><li><a href="/accounting">Accounting</a></li></ol></nav></body></html>"#;
        let s = read_html(html, "nimbus");
        let cats: Vec<&str> = s.categories.iter().map(|c| c.value.as_str()).collect();
        for want in [
            "Accounting",
            "Accounting Software",
            "Finance Tools",
            "BusinessApplication",
        ] {
            assert!(cats.contains(&want), "{want} in {cats:?}");
        }
        assert_eq!(s.brands, vec!["Nimbus Books".to_string()]);
        assert_eq!(s.legal_names, vec!["Nimbus GmbH".to_string()]);
        assert_eq!(s.countries[0].value, "DE");
        assert_eq!(countries_in("DE"), ["DE"].into());
    }

    #[test]
    fn legal_forms() {
        assert_eq!(
            split_legal_form("Orla Freight Ltd."),
            ("orla freight".into(), Some("Ltd"))
        );
        assert_eq!(
            split_legal_form("Orla Freight"),
            ("orla freight".into(), None)
        );
        assert_eq!(
            legal_forms_after(
                "orla freight",
                "Orla Freight GmbH, Berlin. Orla Freight is big."
            ),
            ["GmbH"].into()
        );
        assert_eq!(
            legal_forms_after("orla freight", "Orla Freight Private Limited"),
            ["Ltd"].into()
        );
    }

    #[test]
    fn countries() {
        assert_eq!(countries_in("Leeds, England"), ["GB"].into());
        assert_eq!(countries_in("1 Main St, Austin, TX, USA"), ["US"].into());
        assert!(countries_in("Kochi, Kerala").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn readers_never_panic_on_any_input(text in "\\PC{0,200}", url in "\\PC{0,80}") {
            let _ = terms(&text);
            let _ = url_categories(&url);
            let _ = countries_in(&text);
            let (base, _) = split_legal_form(&text);
            let _ = legal_forms_after(&base, &text);
            let s = read_html(&text, &base);
            proptest::prop_assert!(s.categories.len() <= MAX_SIGNALS);
        }

        #[test]
        fn overlap_is_symmetric(a in "[a-zA-Z ]{0,40}", b in "[a-zA-Z ]{0,40}") {
            let (ta, tb) = (terms(&a), terms(&b));
            proptest::prop_assert_eq!(overlap(&ta, &tb), overlap(&tb, &ta));
        }
    }
}
