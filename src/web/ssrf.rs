//! The SSRF guard. A URL is fetched only when its scheme is http(s), it
//! carries no credentials, and every address its host is or resolves to is
//! a public unicast address; `DRA_FETCH_ALLOWLIST` entries are the one way
//! past the address check. The host is resolved once, here, and the fetcher
//! connects to exactly the addresses checked (see [`PinnedDns`]), so a DNS
//! answer that changes between check and connect (rebinding) cannot slip in.
//!
//! Numeric host forms (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`) are
//! normalised to dotted quads by the WHATWG parser behind `reqwest::Url`
//! before any check; a domain that still looks numeric is refused outright.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use ipnet::{Ipv4Net, Ipv6Net};
use reqwest::Url;

use crate::ports::WebError;

/// Why a URL was not fetched. Messages never repeat the URL's userinfo.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SsrfError {
    #[error("not a valid URL: {0}")]
    Invalid(String),
    #[error("only http and https URLs are fetched, not `{0}:`")]
    Scheme(String),
    #[error("URLs carrying credentials (user@host) are refused")]
    Credentials,
    #[error("the URL has no host")]
    NoHost,
    #[error("host `{0}` looks numeric but is not a valid address; refused")]
    NumericHost(String),
    #[error("host `{0}` names this machine; refused")]
    LocalName(String),
    #[error("{}", blocked_message(.host, .ip, .reason))]
    Blocked {
        host: String,
        ip: IpAddr,
        reason: BlockReason,
    },
    #[error("cannot resolve {host}: {message}")]
    Resolve { host: String, message: String },
    #[error("{0} resolves to no address")]
    NoAddress(String),
    #[error("invalid {setting} entry `{entry}`: {problem}")]
    Allowlist {
        setting: &'static str,
        entry: String,
        problem: String,
    },
}

impl From<SsrfError> for WebError {
    fn from(e: SsrfError) -> Self {
        match e {
            SsrfError::Resolve { .. } | SsrfError::NoAddress(_) | SsrfError::Allowlist { .. } => {
                WebError::Failed(e.to_string())
            }
            other => WebError::Refused(other.to_string()),
        }
    }
}

/// The range an address was refused for, and the IPv4 address it embeds
/// when it was refused through an IPv6 form (mapped, NAT64, 6to4, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockReason {
    pub range: &'static str,
    pub embedded: Option<(&'static str, Ipv4Addr)>,
}

impl fmt::Display for BlockReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.embedded {
            None => write!(f, "{} address", self.range),
            Some((form, v4)) => write!(f, "{} address ({v4} in {form} form)", self.range),
        }
    }
}

fn blocked_message(host: &str, ip: &IpAddr, reason: &BlockReason) -> String {
    let literal = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        == Ok(*ip);
    let reason = reason.to_string();
    let article = if reason.starts_with(['a', 'e', 'i', 'o', 'u', 'I']) {
        "an"
    } else {
        "a"
    };
    if literal {
        format!("refused: {ip} is {article} {reason}")
    } else {
        format!("refused: {host} resolves to {ip}, {article} {reason}")
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8, len: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), len)
}

const fn v6(s: [u16; 8], len: u8) -> Ipv6Net {
    Ipv6Net::new_assert(
        Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
    )
}

/// Instance-metadata endpoints of the big clouds; they sit inside blocked
/// ranges anyway, but get their own name in the refusal.
const METADATA_V4: [Ipv4Addr; 5] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 169, 253),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(100, 100, 100, 200),
    Ipv4Addr::new(192, 0, 0, 192),
];
const METADATA_V6: [Ipv6Addr; 2] = [
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254),
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0253),
];

/// IPv4 ranges that are not public unicast (IANA special-purpose registry).
/// Order matters: the first match names the refusal.
const BLOCKED_V4: &[(Ipv4Net, &str)] = &[
    (v4(0, 0, 0, 0, 32), "unspecified"),
    (v4(0, 0, 0, 0, 8), "\"this network\" (0.0.0.0/8)"),
    (v4(10, 0, 0, 0, 8), "private (10.0.0.0/8)"),
    (v4(100, 64, 0, 0, 10), "carrier-grade NAT (100.64.0.0/10)"),
    (v4(127, 0, 0, 0, 8), "loopback"),
    (v4(169, 254, 0, 0, 16), "link-local"),
    (v4(172, 16, 0, 0, 12), "private (172.16.0.0/12)"),
    (v4(192, 0, 0, 0, 24), "IETF protocol assignment"),
    (v4(192, 0, 2, 0, 24), "documentation"),
    (v4(192, 31, 196, 0, 24), "AS112"),
    (v4(192, 52, 193, 0, 24), "AMT"),
    (v4(192, 88, 99, 0, 24), "6to4 relay anycast"),
    (v4(192, 168, 0, 0, 16), "private (192.168.0.0/16)"),
    (v4(192, 175, 48, 0, 24), "AS112"),
    (v4(198, 18, 0, 0, 15), "benchmarking"),
    (v4(198, 51, 100, 0, 24), "documentation"),
    (v4(203, 0, 113, 0, 24), "documentation"),
    (v4(224, 0, 0, 0, 4), "multicast"),
    (v4(255, 255, 255, 255, 32), "broadcast"),
    (v4(240, 0, 0, 0, 4), "reserved (240.0.0.0/4)"),
];

/// IPv6 ranges refused whatever they embed.
const BLOCKED_V6: &[(Ipv6Net, &str)] = &[
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), "local-use NAT64"),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard-only"),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), "benchmarking"),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignment (2001::/23)",
    ),
    (
        v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),
        "unique local (fc00::/7)",
    ),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "link-local"),
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), "site-local"),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// Why `ip` may not be fetched from, or `None` for a public unicast address.
pub fn blocked_reason(ip: IpAddr) -> Option<BlockReason> {
    match ip {
        IpAddr::V4(ip) => blocked_v4(ip),
        IpAddr::V6(ip) => blocked_v6(ip),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<BlockReason> {
    let range = if METADATA_V4.contains(&ip) {
        "cloud metadata"
    } else {
        BLOCKED_V4
            .iter()
            .find(|(net, _)| net.contains(&ip))
            .map(|(_, label)| *label)?
    };
    Some(BlockReason {
        range,
        embedded: None,
    })
}

fn blocked_v6(ip: Ipv6Addr) -> Option<BlockReason> {
    if METADATA_V6.contains(&ip) {
        return Some(BlockReason {
            range: "cloud metadata",
            embedded: None,
        });
    }
    if ip.is_unspecified() || ip.is_loopback() {
        return BLOCKED_V6
            .iter()
            .find(|(net, _)| net.contains(&ip))
            .map(|(_, range)| BlockReason {
                range,
                embedded: None,
            });
    }
    // An IPv4 address inside an IPv6 form reaches that IPv4 host: judge it.
    for (form, v4) in embedded_v4(ip) {
        if let Some(inner) = blocked_v4(v4) {
            return Some(BlockReason {
                range: inner.range,
                embedded: Some((form, v4)),
            });
        }
    }
    if let Some((_, label)) = BLOCKED_V6.iter().find(|(net, _)| net.contains(&ip)) {
        return Some(BlockReason {
            range: label,
            embedded: None,
        });
    }
    let mapped_or_nat64 =
        ip.to_ipv4_mapped().is_some() || v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96).contains(&ip);
    if mapped_or_nat64 {
        // Embeds a public IPv4 address: as reachable as that address.
        return None;
    }
    if !v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3).contains(&ip) {
        return Some(BlockReason {
            range: "reserved (outside global unicast 2000::/3)",
            embedded: None,
        });
    }
    None
}

/// The IPv4 addresses an IPv6 address carries, by the form that carries them.
fn embedded_v4(ip: Ipv6Addr) -> Vec<(&'static str, Ipv4Addr)> {
    let s = ip.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let mut out = Vec::new();
    if let Some(v4) = ip.to_ipv4_mapped() {
        out.push(("IPv4-mapped", v4));
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] {
        out.push(("IPv4-compatible", from(s[6], s[7])));
    }
    if s[..6] == [0, 0, 0, 0, 0xffff, 0] {
        out.push(("IPv4-translated", from(s[6], s[7])));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        out.push(("NAT64", from(s[6], s[7])));
    }
    if s[0] == 0x2002 {
        out.push(("6to4", from(s[1], s[2])));
    }
    if s[0] == 0x2001 && s[1] == 0 {
        out.push(("Teredo server", from(s[2], s[3])));
        out.push(("Teredo client", from(!s[6], !s[7])));
    }
    out
}

/// The host of a URL that passed the syntactic checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Ip(IpAddr),
    Domain(String),
}

/// Parses a URL and applies every check that needs no DNS: scheme,
/// credentials, host form, and the address of a literal IP host.
pub fn parse_url(raw: &str) -> Result<Url, SsrfError> {
    Url::parse(raw.trim()).map_err(|e| SsrfError::Invalid(e.to_string()))
}

/// Scheme, credentials and host form; returns the host to check.
pub fn precheck(url: &Url) -> Result<Target, SsrfError> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(SsrfError::Scheme(other.to_string())),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(SsrfError::Credentials);
    }
    let host = url.host_str().ok_or(SsrfError::NoHost)?;
    if host.is_empty() {
        return Err(SsrfError::NoHost);
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner
            .parse::<Ipv6Addr>()
            .map(|ip| Target::Ip(IpAddr::V6(ip)))
            .map_err(|_| SsrfError::Invalid(format!("bad IPv6 host {host}")));
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return Ok(Target::Ip(IpAddr::V4(ip)));
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    if looks_numeric(&name) {
        return Err(SsrfError::NumericHost(host.to_string()));
    }
    if name == "localhost" || name.ends_with(".localhost") || name.is_empty() {
        return Err(SsrfError::LocalName(host.to_string()));
    }
    Ok(Target::Domain(host.to_string()))
}

/// The WHATWG parser turns any host whose last label is a number into an
/// IPv4 address or an error; a domain that still ends in one is a parser
/// disagreement waiting to happen.
fn looks_numeric(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let hex = last
        .strip_prefix("0x")
        .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.chars().all(|c| c.is_ascii_digit()))
}

/// Refuses `ip` for `host` unless it is public unicast.
pub fn check_ip(host: &str, ip: IpAddr) -> Result<(), SsrfError> {
    match blocked_reason(ip) {
        None => Ok(()),
        Some(reason) => Err(SsrfError::Blocked {
            host: host.to_string(),
            ip,
            reason,
        }),
    }
}

/// `host` or `host:port` entries that skip the address check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    entries: Vec<(String, Option<u16>)>,
}

impl Allowlist {
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Allowlist, SsrfError> {
        let mut out = Vec::new();
        for raw in entries {
            let entry = raw.as_ref().trim();
            if entry.is_empty() {
                continue;
            }
            let bad = |problem: &str| SsrfError::Allowlist {
                setting: crate::config::settings::FETCH_ALLOWLIST,
                entry: entry.to_string(),
                problem: problem.to_string(),
            };
            let (host, port) = if let Some(rest) = entry.strip_prefix('[') {
                let (host, after) = rest.split_once(']').ok_or_else(|| bad("missing `]`"))?;
                match after {
                    "" => (host, None),
                    p => (
                        host,
                        Some(p.strip_prefix(':').ok_or_else(|| bad("expected `:port`"))?),
                    ),
                }
            } else if entry.matches(':').count() == 1 {
                let (host, port) = entry.split_once(':').unwrap_or((entry, ""));
                (host, Some(port))
            } else {
                (entry, None)
            };
            let port = match port {
                None => None,
                Some(p) => Some(
                    p.parse::<u16>()
                        .map_err(|_| bad("the port must be a number from 0 to 65535"))?,
                ),
            };
            let host = normalize_host(host);
            if host.is_empty() || host.contains('/') || host.contains('@') {
                return Err(bad("expected `host` or `host:port`"));
            }
            out.push((host, port));
        }
        Ok(Allowlist { entries: out })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `host` (as in a URL, brackets allowed) on `port` is listed.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = normalize_host(host);
        self.entries
            .iter()
            .any(|(h, p)| *h == host && p.is_none_or(|p| p == port))
    }
}

/// Lower case, no brackets, no trailing dot, IP addresses in canonical form.
fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.to_string(),
        Err(_) => host,
    }
}

/// Looks host names up. Injectable so tests can make any name resolve to
/// any address without DNS.
#[async_trait]
pub trait HostResolver: Send + Sync {
    async fn lookup(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String>;
}

/// The system resolver (getaddrinfo through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl HostResolver for SystemResolver {
    async fn lookup(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
        tokio::net::lookup_host((host, port))
            .await
            .map(|addrs| addrs.map(|a| a.ip()).collect())
            .map_err(|e| e.to_string())
    }
}

/// A fixed table of names to addresses; unknown names do not resolve.
#[derive(Debug, Clone, Default)]
pub struct StaticResolver {
    table: HashMap<String, Vec<IpAddr>>,
}

impl StaticResolver {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, host: &str, addrs: &[IpAddr]) -> Self {
        self.table.insert(normalize_host(host), addrs.to_vec());
        self
    }
}

#[async_trait]
impl HostResolver for StaticResolver {
    async fn lookup(&self, host: &str, _port: u16) -> Result<Vec<IpAddr>, String> {
        self.table
            .get(&normalize_host(host))
            .cloned()
            .ok_or_else(|| "no such host".to_string())
    }
}

/// A URL that passed the guard, with the addresses the fetcher may use.
#[derive(Debug, Clone)]
pub struct Checked {
    pub url: Url,
    pub host: String,
    pub port: u16,
    pub addrs: Vec<IpAddr>,
    pub allowlisted: bool,
}

/// The guard: allowlist, resolver, and the pins handed to the connectors.
///
/// Pins live in two tables because reqwest asks its resolver for a host
/// without the port: were an allowlisted `host:port` and a public request
/// to the same host on another port to share one table, the public request
/// could connect to the allowlisted private address. Each table feeds its
/// own client, so a connection made through the public one only ever goes
/// to an address that passed the check.
#[derive(Clone)]
pub struct SsrfGuard {
    allow: Allowlist,
    resolver: Arc<dyn HostResolver>,
    public_pins: Arc<PinnedDns>,
    allowed_pins: Arc<PinnedDns>,
}

impl fmt::Debug for SsrfGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SsrfGuard")
            .field("allow", &self.allow)
            .finish_non_exhaustive()
    }
}

impl SsrfGuard {
    pub fn new(allow: Allowlist, resolver: Arc<dyn HostResolver>) -> Self {
        SsrfGuard {
            allow,
            resolver,
            public_pins: Arc::new(PinnedDns::default()),
            allowed_pins: Arc::new(PinnedDns::default()),
        }
    }

    pub fn allowlist(&self) -> &Allowlist {
        &self.allow
    }

    /// The resolver for the client that serves checks with `allowlisted`
    /// as given: it answers only with addresses pinned by such checks.
    pub fn pinned_dns(&self, allowlisted: bool) -> Arc<PinnedDns> {
        if allowlisted {
            self.allowed_pins.clone()
        } else {
            self.public_pins.clone()
        }
    }

    /// Checks a URL string.
    pub async fn check(&self, raw: &str) -> Result<Checked, SsrfError> {
        self.check_url(parse_url(raw)?).await
    }

    /// Checks a parsed URL: every syntactic rule, then every address the host
    /// is or resolves to. Domain answers are pinned for the connector.
    pub async fn check_url(&self, url: Url) -> Result<Checked, SsrfError> {
        let target = precheck(&url)?;
        let host = url.host_str().unwrap_or_default().to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        let allowlisted = self.allow.allows(&host, port);
        let addrs = match &target {
            Target::Ip(ip) => vec![*ip],
            Target::Domain(name) => {
                let addrs = self.resolver.lookup(name, port).await.map_err(|message| {
                    SsrfError::Resolve {
                        host: name.clone(),
                        message,
                    }
                })?;
                if addrs.is_empty() {
                    return Err(SsrfError::NoAddress(name.clone()));
                }
                addrs
            }
        };
        if !allowlisted {
            // One bad answer condemns the host: a name mixing public and
            // private answers is a rebinding setup, not an accident.
            for ip in &addrs {
                check_ip(&host, *ip)?;
            }
        }
        if let Target::Domain(name) = &target {
            self.pinned_dns(allowlisted).pin(name, &addrs);
        }
        Ok(Checked {
            url,
            host,
            port,
            addrs,
            allowlisted,
        })
    }
}

/// The DNS resolver handed to reqwest: it resolves nothing itself and
/// answers only with addresses the guard has checked and pinned, so the
/// connection goes to a checked address or fails. Literal IP hosts never
/// reach a resolver; the guard checks those before the request.
#[derive(Debug, Default)]
pub struct PinnedDns {
    pins: Mutex<HashMap<String, Vec<IpAddr>>>,
}

impl PinnedDns {
    fn pin(&self, host: &str, addrs: &[IpAddr]) {
        if let Ok(mut pins) = self.pins.lock() {
            pins.insert(host.to_ascii_lowercase(), addrs.to_vec());
        }
    }

    fn get(&self, host: &str) -> Option<Vec<IpAddr>> {
        self.pins
            .lock()
            .ok()
            .and_then(|p| p.get(&host.to_ascii_lowercase()).cloned())
    }
}

impl reqwest::dns::Resolve for PinnedDns {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let found = self.get(name.as_str());
        let host = name.as_str().to_string();
        Box::pin(async move {
            match found {
                Some(addrs) => {
                    let addrs: reqwest::dns::Addrs =
                        Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
                    Ok(addrs)
                }
                None => Err(format!("{host} was not checked by the SSRF guard").into()),
            }
        })
    }
}

#[cfg(test)]
mod tests;
