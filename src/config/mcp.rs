//! Which MCP servers a run connects to, and the rules every entry obeys.
//!
//! Sources, first non-empty wins: `--mcp` flags, then `[[mcp]]` tables in
//! the config file, then `DRA_MCP_SERVERS` (a JSON list), then
//! `DRA_MCP_URL` (+ `DRA_MCP_LABEL`). Rules:
//! - a URL that is a bare host gets `/mcp` appended; a URL with a path is
//!   used as given;
//! - `0.0.0.0` (a bind address) is dialled as loopback;
//! - only http(s); link-local and cloud-metadata targets are refused,
//!   loopback and private addresses are allowed (the user's own servers);
//! - `DRA_MCP_BEARER` is attached to every HTTP server without its own
//!   `bearer`.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value as Json;

use super::Secret;

/// How long `dra ask` waits for all servers to start.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// MCP settings of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    pub servers: Vec<McpServer>,
    /// Simultaneous calls across the run.
    pub max_concurrency: usize,
    /// How long one call may keep backing off from 429s.
    pub rate_limit_max_wait: Duration,
    pub startup_timeout: Duration,
    /// Labels of servers a resumed run was asked with that are not
    /// configured now: never started or connected (a run dir is data, not
    /// configuration); their recorded tool lists and answers replay.
    pub replay_only: Vec<String>,
}

impl Default for McpSettings {
    fn default() -> Self {
        McpSettings {
            servers: Vec::new(),
            max_concurrency: 10,
            rate_limit_max_wait: Duration::from_secs(120),
            startup_timeout: STARTUP_TIMEOUT,
            replay_only: Vec::new(),
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServer {
    /// The name the user gave it (shown in events and the report's sources).
    pub label: String,
    pub transport: McpTransport,
    /// Where the entry came from (`--mcp`, a config file, an env var).
    pub origin: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    /// Streamable HTTP.
    Http { url: String, bearer: Option<Secret> },
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Variables set for the child on top of a minimal base.
        env: BTreeMap<String, String>,
    },
}

impl McpServer {
    /// Where the server is, for people: its URL or its command line.
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Http { url, .. } => url.clone(),
            McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// An entry that breaks a rule; the message names the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP server {entry}: {problem}")]
pub struct McpConfigError {
    pub entry: String,
    pub problem: String,
}

fn err(entry: impl Into<String>, problem: impl Into<String>) -> McpConfigError {
    McpConfigError {
        entry: entry.into(),
        problem: problem.into(),
    }
}

/// The longest label; `label__tool` must fit in 64 characters.
pub const MAX_LABEL_CHARS: usize = 32;

/// Environment variables a child never gets, even when an entry sets them:
/// they change what code the child loads.
fn forbidden_env(key: &str) -> bool {
    let k = key.to_ascii_uppercase();
    k.starts_with("LD_")
        || k.starts_with("DYLD_")
        || matches!(
            k.as_str(),
            "NODE_OPTIONS" | "PYTHONSTARTUP" | "PERL5OPT" | "BASH_ENV" | "ENV"
        )
}

/// Checks a label: 1 to 32 letters, digits, `_` or `-`.
pub fn check_label(entry: &str, label: &str) -> Result<String, McpConfigError> {
    let label = label.trim();
    if label.is_empty()
        || label.chars().count() > MAX_LABEL_CHARS
        || !label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(err(
            entry,
            format!("label {label:?} must be 1 to {MAX_LABEL_CHARS} letters, digits, `_` or `-`"),
        ));
    }
    Ok(label.to_string())
}

/// A label from a URL's host: `127.0.0.1:8000` becomes `127_0_0_1_8000`.
fn label_from_url(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or("mcp");
    let mut s: String = match url.port() {
        Some(p) => format!("{host}_{p}"),
        None => host.to_string(),
    }
    .chars()
    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
    .collect();
    s.truncate(MAX_LABEL_CHARS);
    s
}

fn label_from_command(command: &str) -> String {
    let base = command.rsplit('/').next().unwrap_or(command);
    let mut s: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(MAX_LABEL_CHARS);
    if s.is_empty() { "mcp".into() } else { s }
}

/// Whether an address is link-local or a cloud metadata endpoint.
fn refused_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_link_local()
                // Alibaba Cloud's metadata service.
                || v4 == Ipv4Addr::new(100, 100, 100, 200)
        }
        IpAddr::V6(v6) => {
            let seg = v6.segments();
            (seg[0] & 0xffc0) == 0xfe80
                // AWS's IPv6 metadata endpoint.
                || v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)
                || v6.to_ipv4_mapped().is_some_and(|v4| refused_ip(IpAddr::V4(v4)))
        }
    }
}

const METADATA_HOSTS: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
];

/// Normalises and checks a server URL (see the module rules).
pub fn normalize_url(entry: &str, raw: &str) -> Result<String, McpConfigError> {
    let raw = raw.trim();
    let mut url =
        reqwest::Url::parse(raw).map_err(|e| err(entry, format!("{raw:?} is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(err(
            entry,
            format!("{raw:?}: only http:// and https:// URLs are allowed"),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(err(
            entry,
            "credentials in the URL are refused: use `bearer` or DRA_MCP_BEARER",
        ));
    }
    let Some(host_str) = url.host_str().map(str::to_string) else {
        return Err(err(entry, format!("{raw:?} has no host")));
    };
    let host: Option<IpAddr> = host_str
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok();
    if host.is_none() {
        let d = host_str.trim_end_matches('.').to_ascii_lowercase();
        if METADATA_HOSTS.contains(&d.as_str()) {
            return Err(err(
                entry,
                format!("{raw:?}: cloud metadata hosts are refused"),
            ));
        }
    }
    match host {
        Some(IpAddr::V4(ip)) if ip.is_unspecified() => {
            url.set_ip_host(IpAddr::V4(Ipv4Addr::LOCALHOST))
                .map_err(|()| err(entry, "cannot rewrite 0.0.0.0"))?;
        }
        Some(IpAddr::V6(ip)) if ip.is_unspecified() => {
            url.set_ip_host(IpAddr::V6(Ipv6Addr::LOCALHOST))
                .map_err(|()| err(entry, "cannot rewrite [::]"))?;
        }
        Some(ip) if refused_ip(ip) => {
            return Err(err(
                entry,
                format!("{raw:?}: link-local and cloud metadata addresses are refused"),
            ));
        }
        _ => {}
    }
    if url.path().is_empty() || url.path() == "/" {
        url.set_path("/mcp");
    }
    Ok(url.to_string())
}

/// An entry as written in JSON or TOML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    label: Option<String>,
    url: Option<String>,
    bearer: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

fn from_raw(entry: &str, raw: RawEntry, origin: &str) -> Result<McpServer, McpConfigError> {
    let transport = match (raw.url, raw.command) {
        (Some(_), Some(_)) => {
            return Err(err(entry, "give either `url` or `command`, not both"));
        }
        (None, None) => {
            return Err(err(
                entry,
                "needs a `url` (streamable HTTP) or a `command` (stdio)",
            ));
        }
        (Some(url), None) => {
            if !raw.args.is_empty() || !raw.env.is_empty() {
                return Err(err(entry, "`args` and `env` belong to `command` servers"));
            }
            McpTransport::Http {
                url: normalize_url(entry, &url)?,
                bearer: raw
                    .bearer
                    .filter(|b| !b.trim().is_empty())
                    .map(|b| Secret::new(b.trim())),
            }
        }
        (None, Some(command)) => {
            if raw.bearer.is_some() {
                return Err(err(entry, "`bearer` belongs to `url` servers"));
            }
            if command.trim().is_empty() {
                return Err(err(entry, "`command` is empty"));
            }
            if let Some(bad) = raw.env.keys().find(|k| forbidden_env(k)) {
                return Err(err(
                    entry,
                    format!("`env` may not set {bad}: it changes what code the server loads"),
                ));
            }
            McpTransport::Stdio {
                command: command.trim().to_string(),
                args: raw.args,
                env: raw.env,
            }
        }
    };
    let label = match raw.label {
        Some(l) => check_label(entry, &l)?,
        None => match &transport {
            McpTransport::Http { url, .. } => reqwest::Url::parse(url)
                .map(|u| label_from_url(&u))
                .unwrap_or_else(|_| "mcp".into()),
            McpTransport::Stdio { command, .. } => label_from_command(command),
        },
    };
    Ok(McpServer {
        label,
        transport,
        origin: origin.to_string(),
    })
}

/// Parses `DRA_MCP_SERVERS`: a JSON list of `{label, url, bearer?}` or
/// `{label, command, args?, env?}` objects.
pub fn parse_servers_json(raw: &str, origin: &str) -> Result<Vec<McpServer>, McpConfigError> {
    let json: Json =
        serde_json::from_str(raw).map_err(|e| err("list", format!("not valid JSON ({e})")))?;
    let Json::Array(items) = json else {
        return Err(err(
            "list",
            "expected a JSON list of {\"label\", \"url\"} or {\"label\", \"command\", \"args\", \"env\"} objects",
        ));
    };
    let servers = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let entry = entry_name(i, item.get("label").and_then(Json::as_str));
            let raw: RawEntry =
                serde_json::from_value(item).map_err(|e| err(entry.clone(), format!("{e}")))?;
            from_raw(&entry, raw, origin)
        })
        .collect::<Result<Vec<_>, _>>()?;
    unique(servers)
}

/// Parses the `[[mcp]]` tables of a config file.
pub fn parse_toml_tables(
    value: &toml::Value,
    origin: &str,
) -> Result<Vec<McpServer>, McpConfigError> {
    let toml::Value::Array(items) = value else {
        return Err(err(
            "[mcp]",
            "write servers as [[mcp]] tables (label = \"...\", url = \"...\" or command = \"...\")",
        ));
    };
    let servers = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let entry = format!(
                "[[mcp]] #{}{}",
                i + 1,
                item.get("label")
                    .and_then(toml::Value::as_str)
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default()
            );
            let raw: RawEntry = item
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| err(entry.clone(), e.message().to_string()))?;
            from_raw(&entry, raw, origin)
        })
        .collect::<Result<Vec<_>, _>>()?;
    unique(servers)
}

/// Parses one `--mcp` flag: `[LABEL=]URL` or `[LABEL=]COMMAND ARG...`
/// (the command line split on whitespace).
pub fn parse_flag(raw: &str) -> Result<McpServer, McpConfigError> {
    let entry = format!("--mcp {raw:?}");
    let raw = raw.trim();
    let is_url = |s: &str| s.starts_with("http://") || s.starts_with("https://");
    let (label, rest) = if is_url(raw) {
        (None, raw)
    } else {
        match raw.split_once('=') {
            Some((l, r)) if !l.contains(char::is_whitespace) && !l.contains('/') => {
                (Some(l.to_string()), r.trim())
            }
            _ => (None, raw),
        }
    };
    let parsed = if is_url(rest) {
        RawEntry {
            label,
            url: Some(rest.to_string()),
            bearer: None,
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
        }
    } else {
        let mut words = rest.split_whitespace().map(str::to_string);
        let Some(command) = words.next() else {
            return Err(err(entry, "expected [LABEL=]URL or [LABEL=]COMMAND ARGS"));
        };
        RawEntry {
            label,
            url: None,
            bearer: None,
            command: Some(command),
            args: words.collect(),
            env: BTreeMap::new(),
        }
    };
    from_raw(&entry, parsed, "--mcp")
}

/// The servers from `--mcp` flags.
pub fn parse_flags(flags: &[String]) -> Result<Vec<McpServer>, McpConfigError> {
    unique(
        flags
            .iter()
            .map(|f| parse_flag(f))
            .collect::<Result<Vec<_>, _>>()?,
    )
}

/// `DRA_MCP_URL` with its optional `DRA_MCP_LABEL`.
pub fn single(url: &str, label: Option<&str>, origin: &str) -> Result<McpServer, McpConfigError> {
    from_raw(
        "DRA_MCP_URL",
        RawEntry {
            label: label.map(str::to_string),
            url: Some(url.to_string()),
            bearer: None,
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
        },
        origin,
    )
}

/// The first non-empty source wins; then `DRA_MCP_BEARER` is attached to
/// HTTP servers without their own.
pub fn resolve(sources: [Vec<McpServer>; 4], bearer: Option<&Secret>) -> Vec<McpServer> {
    let mut servers = sources
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    if let Some(b) = bearer {
        for s in &mut servers {
            if let McpTransport::Http { bearer: own, .. } = &mut s.transport
                && own.is_none()
            {
                *own = Some(b.clone());
            }
        }
    }
    servers
}

fn entry_name(i: usize, label: Option<&str>) -> String {
    match label {
        Some(l) => format!("#{} ({l})", i + 1),
        None => format!("#{}", i + 1),
    }
}

/// Two servers may not share a label: it names their tools.
fn unique(servers: Vec<McpServer>) -> Result<Vec<McpServer>, McpConfigError> {
    let mut seen = std::collections::HashSet::new();
    for s in &servers {
        if !seen.insert(s.label.to_ascii_lowercase()) {
            return Err(err(
                format!("{:?}", s.label),
                "two servers share this label; give each a distinct `label`",
            ));
        }
    }
    Ok(servers)
}

/// A server list as it may be shown (doctor, the run header): bearers and
/// `env` values hidden.
pub fn redact_json(v: &Json) -> Json {
    match v {
        Json::Array(items) => Json::Array(items.iter().map(redact_json).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("bearer", _) => Json::String("***".into()),
                        ("env", Json::Object(env)) => Json::Object(
                            env.keys()
                                .map(|k| (k.clone(), Json::String("***".into())))
                                .collect(),
                        ),
                        _ => redact_json(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The variables a stdio server starts with: a minimal base from dra's own
/// environment (never its keys or tokens), then the entry's `env`.
pub fn child_env(
    parent: impl IntoIterator<Item = (String, String)>,
    own: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    const PASS: &[&str] = &[
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "TMPDIR",
        "TERM",
        "SYSTEMROOT",
    ];
    let mut env: BTreeMap<String, String> = parent
        .into_iter()
        .filter(|(k, _)| PASS.contains(&k.as_str()))
        .collect();
    for (k, v) in own {
        if !forbidden_env(k) {
            env.insert(k.clone(), v.clone());
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn url_of(s: &McpServer) -> &str {
        match &s.transport {
            McpTransport::Http { url, .. } => url,
            McpTransport::Stdio { .. } => panic!("not http"),
        }
    }

    #[test]
    fn the_mcp_path_rule() {
        assert_eq!(
            normalize_url("e", "http://127.0.0.1:8000").unwrap(),
            "http://127.0.0.1:8000/mcp"
        );
        assert_eq!(
            normalize_url("e", "http://gw.internal/").unwrap(),
            "http://gw.internal/mcp"
        );
        assert_eq!(
            normalize_url("e", "https://gw.internal/api/v2").unwrap(),
            "https://gw.internal/api/v2"
        );
        assert_eq!(
            normalize_url("e", "http://10.0.0.5:9/mcp").unwrap(),
            "http://10.0.0.5:9/mcp"
        );
    }

    #[test]
    fn bind_addresses_become_loopback() {
        assert_eq!(
            normalize_url("e", "http://0.0.0.0:8000/mcp").unwrap(),
            "http://127.0.0.1:8000/mcp"
        );
        assert_eq!(
            normalize_url("e", "http://[::]:8000").unwrap(),
            "http://[::1]:8000/mcp"
        );
    }

    #[test]
    fn link_local_metadata_and_other_schemes_are_refused() {
        for bad in [
            "http://169.254.169.254/latest",
            "http://169.254.1.1:80/mcp",
            "http://[fe80::1]/mcp",
            "http://[fd00:ec2::254]/",
            "http://metadata.google.internal/",
            "http://100.100.100.200/",
            "file:///etc/passwd",
            "ftp://127.0.0.1/",
            "http://user:pw@127.0.0.1/mcp",
            "not a url",
        ] {
            let e = normalize_url("entry-x", bad).unwrap_err();
            assert_eq!(e.entry, "entry-x", "{bad}");
        }
        // Loopback and private addresses are the user's own servers.
        for good in [
            "http://127.0.0.1:1/mcp",
            "http://localhost:1",
            "http://192.168.1.10/mcp",
            "http://172.16.0.1/mcp",
        ] {
            assert!(normalize_url("e", good).is_ok(), "{good}");
        }
    }

    #[test]
    fn json_list_with_both_kinds_and_errors_naming_the_entry() {
        let s = parse_servers_json(
            r#"[{"label":"wiki","url":"http://127.0.0.1:9"},
                {"label":"tickets","command":"node","args":["srv.js"],"env":{"A":"1"}}]"#,
            "env",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(url_of(&s[0]), "http://127.0.0.1:9/mcp");
        assert_eq!(s[1].target(), "node srv.js");

        let e = parse_servers_json(
            r#"[{"label":"ok","url":"http://127.0.0.1:9"},{"label":"meta","url":"http://169.254.169.254"}]"#,
            "env",
        )
        .unwrap_err();
        assert!(e.to_string().contains("#2 (meta)"), "{e}");
        let e = parse_servers_json(r#"[{"label":"x"}]"#, "env").unwrap_err();
        assert!(e.to_string().contains("needs a `url`"), "{e}");
        let e = parse_servers_json(r#"[{"label":"x","url":"http://a","colour":1}]"#, "env")
            .unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = parse_servers_json(
            r#"[{"label":"x","command":"srv","env":{"LD_PRELOAD":"/evil.so"}}]"#,
            "env",
        )
        .unwrap_err();
        assert!(e.to_string().contains("LD_PRELOAD"), "{e}");
        let e = parse_servers_json(
            r#"[{"label":"a","url":"http://127.0.0.1:1"},{"label":"A","url":"http://127.0.0.1:2"}]"#,
            "env",
        )
        .unwrap_err();
        assert!(e.to_string().contains("share"), "{e}");
        assert!(parse_servers_json(r#"{"label":"x"}"#, "env").is_err());
        let e =
            parse_servers_json(r#"[{"label":"bad label","url":"http://a"}]"#, "env").unwrap_err();
        assert!(e.to_string().contains("bad label"), "{e}");
    }

    #[test]
    fn flags_take_a_url_or_a_command_with_an_optional_label() {
        let s = parse_flag("http://127.0.0.1:8000").unwrap();
        assert_eq!(s.label, "127_0_0_1_8000");
        assert_eq!(url_of(&s), "http://127.0.0.1:8000/mcp");
        let s = parse_flag("wiki=http://127.0.0.1:8000/x?a=b").unwrap();
        assert_eq!(s.label, "wiki");
        assert_eq!(url_of(&s), "http://127.0.0.1:8000/x?a=b");
        let s = parse_flag("everything=npx -y server-everything stdio").unwrap();
        assert_eq!(s.label, "everything");
        assert_eq!(
            s.transport,
            McpTransport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server-everything".into(), "stdio".into()],
                env: BTreeMap::new(),
            }
        );
        let s = parse_flag("/usr/bin/my-server --flag=1").unwrap();
        assert_eq!(s.label, "my-server");
        assert!(parse_flag("").is_err());
        assert!(parse_flag("x=").is_err());
    }

    #[test]
    fn toml_tables() {
        let t: toml::Table = r#"
            [[mcp]]
            label = "wiki"
            url = "http://127.0.0.1:7"
            bearer = "tok"
            [[mcp]]
            label = "local"
            command = "srv"
            args = ["--stdio"]
        "#
        .parse()
        .unwrap();
        let s = parse_toml_tables(&t["mcp"], "file").unwrap();
        assert_eq!(s.len(), 2);
        assert!(matches!(
            &s[0].transport,
            McpTransport::Http { bearer: Some(b), .. } if b.expose() == "tok"
        ));
        let t: toml::Table = "[[mcp]]\nlabel = \"x\"\nurl = \"gopher://a\"\n"
            .parse()
            .unwrap();
        let e = parse_toml_tables(&t["mcp"], "file").unwrap_err();
        assert!(e.to_string().contains("[[mcp]] #1 (x)"), "{e}");
    }

    #[test]
    fn first_non_empty_source_wins_and_the_bearer_fills_gaps() {
        let a = parse_flags(&["a=http://127.0.0.1:1".into()]).unwrap();
        let own = parse_servers_json(
            r#"[{"label":"b","url":"http://127.0.0.1:2","bearer":"own"},{"label":"c","url":"http://127.0.0.1:3"},{"label":"d","command":"x"}]"#,
            "env",
        )
        .unwrap();
        let single = vec![single("http://127.0.0.1:4", Some("e"), "env").unwrap()];
        let got = resolve([vec![], vec![], own.clone(), single.clone()], None);
        assert_eq!(got, own);
        let got = resolve([a.clone(), vec![], own.clone(), single.clone()], None);
        assert_eq!(got, a);
        let got = resolve([vec![], vec![], vec![], single], None);
        assert_eq!(got[0].label, "e");
        let got = resolve([vec![], vec![], own, vec![]], Some(&Secret::new("shared")));
        let bearers: Vec<Option<&str>> = got
            .iter()
            .map(|s| match &s.transport {
                McpTransport::Http { bearer, .. } => bearer.as_ref().map(Secret::expose),
                McpTransport::Stdio { .. } => None,
            })
            .collect();
        assert_eq!(bearers, vec![Some("own"), Some("shared"), None]);
    }

    #[test]
    fn shown_lists_hide_bearers_and_env_values() {
        let v: Json = serde_json::from_str(
            r#"[{"label":"a","url":"http://x","bearer":"tok-canary"},{"label":"b","command":"c","env":{"K":"env-canary"}}]"#,
        )
        .unwrap();
        let shown = redact_json(&v).to_string();
        assert!(!shown.contains("canary"), "{shown}");
        assert!(shown.contains("\"K\":\"***\""), "{shown}");
    }

    #[test]
    fn the_child_environment_holds_no_keys() {
        let parent = vec![
            ("PATH".to_string(), "/bin".to_string()),
            ("OPENAI_API_KEY".to_string(), "sk-canary".to_string()),
            ("DRA_MCP_BEARER".to_string(), "tok".to_string()),
            ("LD_PRELOAD".to_string(), "/x.so".to_string()),
        ];
        let own = BTreeMap::from([("SERVER_TOKEN".to_string(), "mine".to_string())]);
        let env = child_env(parent, &own);
        assert_eq!(env.get("PATH").map(String::as_str), Some("/bin"));
        assert_eq!(env.get("SERVER_TOKEN").map(String::as_str), Some("mine"));
        assert!(!env.contains_key("OPENAI_API_KEY"));
        assert!(!env.contains_key("DRA_MCP_BEARER"));
        assert!(!env.contains_key("LD_PRELOAD"));
    }

    proptest! {
        #[test]
        fn normalised_urls_obey_the_rules(
            host in prop_oneof![
                Just("127.0.0.1".to_string()),
                Just("0.0.0.0".to_string()),
                Just("169.254.169.254".to_string()),
                Just("10.1.2.3".to_string()),
                "[a-z]{1,10}(\\.[a-z]{2,5})?",
                (0u8..=255, 0u8..=255, 0u8..=255, 0u8..=255)
                    .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
            ],
            port in proptest::option::of(1u16..65535),
            path in "(/[a-z0-9]{0,6}){0,3}",
            scheme in prop_oneof![Just("http"), Just("https"), Just("ftp"), Just("file")],
        ) {
            let raw = match port {
                Some(p) => format!("{scheme}://{host}:{p}{path}"),
                None => format!("{scheme}://{host}{path}"),
            };
            match normalize_url("e", &raw) {
                Ok(url) => {
                    let u = reqwest::Url::parse(&url).unwrap();
                    prop_assert!(matches!(u.scheme(), "http" | "https"));
                    let h = u.host_str().unwrap_or_default();
                    prop_assert_ne!(h, "0.0.0.0");
                    prop_assert!(!h.starts_with("169.254."));
                    prop_assert!(u.path() != "/" && !u.path().is_empty());
                    // Idempotent.
                    prop_assert_eq!(normalize_url("e", &url).unwrap(), url.clone());
                }
                Err(e) => prop_assert_eq!(e.entry, "e"),
            }
        }

        #[test]
        fn flag_parsing_never_panics_and_errors_name_the_flag(raw in "\\PC{0,60}") {
            if let Err(e) = parse_flag(&raw) {
                prop_assert!(e.entry.starts_with("--mcp"));
            }
        }

        #[test]
        fn json_parsing_never_panics(raw in "\\PC{0,80}") {
            let _ = parse_servers_json(&raw, "env");
        }

        #[test]
        fn labels_accepted_are_tool_name_safe(label in "\\PC{0,40}") {
            if let Ok(l) = check_label("e", &label) {
                prop_assert!(l.len() <= MAX_LABEL_CHARS);
                prop_assert!(l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
            }
        }
    }
}
