//! The classifier over the hostile-URL table shared with the namespace
//! test: pure functions and an in-memory resolver, no sockets.

use super::*;

const TABLE: &str = include_str!("../../../tests/web/hostile_urls.txt");

struct Row {
    expect: &'static str,
    url: &'static str,
    addrs: Vec<IpAddr>,
}

fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (expect, rest) = l.split_once(' ').unwrap();
            let (url, addrs) = match rest.split_once(" => ") {
                Some((u, a)) => (u, a.split(',').map(|a| a.trim().parse().unwrap()).collect()),
                None => (rest, Vec::new()),
            };
            Row {
                expect,
                url: url.trim(),
                addrs,
            }
        })
        .collect()
}

fn kind(e: &SsrfError) -> &'static str {
    match e {
        SsrfError::Blocked { .. } => "blocked",
        SsrfError::Scheme(_) => "scheme",
        SsrfError::Credentials => "credentials",
        SsrfError::NumericHost(_) => "numeric",
        SsrfError::LocalName(_) => "local",
        SsrfError::Invalid(_) | SsrfError::NoHost => "invalid",
        SsrfError::Resolve { .. } | SsrfError::NoAddress(_) => "resolve",
        SsrfError::Allowlist { .. } => "allowlist",
    }
}

/// The synchronous path: parse, precheck, then every address of the host.
fn classify(url: &str, addrs: &[IpAddr]) -> Result<(), SsrfError> {
    let parsed = parse_url(url)?;
    let host = parsed.host_str().unwrap_or_default().to_string();
    match precheck(&parsed)? {
        Target::Ip(ip) => check_ip(&host, ip),
        Target::Domain(name) => {
            if addrs.is_empty() {
                return Err(SsrfError::NoAddress(name));
            }
            addrs.iter().try_for_each(|ip| check_ip(&host, *ip))
        }
    }
}

fn resolver_for(rows: &[Row]) -> StaticResolver {
    rows.iter().fold(StaticResolver::new(), |r, row| {
        match parse_url(row.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
        {
            Some(host) if !row.addrs.is_empty() => r.with(&host, &row.addrs),
            _ => r,
        }
    })
}

#[test]
fn table_has_at_least_a_hundred_hostile_urls() {
    assert!(rows().len() >= 100, "{}", rows().len());
}

#[test]
fn every_hostile_url_is_refused_for_the_expected_reason() {
    let mut wrong = Vec::new();
    for row in rows() {
        match classify(row.url, &row.addrs) {
            Ok(()) => wrong.push(format!("{}: allowed", row.url)),
            Err(e) if kind(&e) != row.expect => {
                wrong.push(format!("{}: expected {}, got {e}", row.url, row.expect))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test]
async fn the_guard_refuses_the_whole_table_and_pins_nothing() {
    let rows = rows();
    let guard = SsrfGuard::new(Allowlist::default(), Arc::new(resolver_for(&rows)));
    for row in &rows {
        let got = guard.check(row.url).await;
        let e = got
            .err()
            .unwrap_or_else(|| panic!("{} passed the guard", row.url));
        assert_eq!(kind(&e), row.expect, "{}: {e}", row.url);
    }
    assert!(guard.public_pins.pins.lock().unwrap().is_empty());
    assert!(guard.allowed_pins.pins.lock().unwrap().is_empty());
}

#[test]
fn public_addresses_pass_in_every_spelling() {
    for (url, addrs) in [
        ("http://8.8.8.8/", vec![]),
        ("http://134744072/", vec![]),
        ("https://1.1.1.1:8080/x", vec![]),
        ("http://[2606:4700:4700::1111]/", vec![]),
        ("http://[::ffff:8.8.8.8]/", vec![]),
        ("http://[64:ff9b::808:808]/", vec![]),
        ("http://[2002:808:808::1]/", vec![]),
        (
            "http://example.com/",
            vec!["93.184.215.14".parse().unwrap()],
        ),
        (
            "http://dual.example/",
            vec![
                "93.184.215.14".parse().unwrap(),
                "2606:2800:21f:cb07:6820:80da:af6b:8b2c".parse().unwrap(),
            ],
        ),
        ("http://9.255.255.255/", vec![]),
        ("http://11.0.0.0/", vec![]),
        ("http://100.63.255.255/", vec![]),
        ("http://100.128.0.0/", vec![]),
        ("http://126.255.255.255/", vec![]),
        ("http://128.0.0.0/", vec![]),
        ("http://169.253.255.255/", vec![]),
        ("http://169.255.0.0/", vec![]),
        ("http://172.15.255.255/", vec![]),
        ("http://172.32.0.0/", vec![]),
        ("http://192.167.255.255/", vec![]),
        ("http://192.169.0.0/", vec![]),
        ("http://198.17.255.255/", vec![]),
        ("http://198.20.0.0/", vec![]),
        ("http://223.255.255.255/", vec![]),
    ] {
        assert_eq!(classify(url, &addrs), Ok(()), "{url}");
    }
}

#[test]
fn numeric_forms_normalise_before_the_check() {
    for (raw, host) in [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0/", "0.0.0.0"),
        ("http://１２７.０.０.１/", "127.0.0.1"),
        ("http://%31%32%37.0.0.1/", "127.0.0.1"),
        ("http://[0:0::1]/", "[::1]"),
    ] {
        assert_eq!(parse_url(raw).unwrap().host_str(), Some(host), "{raw}");
    }
    assert!(looks_numeric("1.2.3.4"));
    assert!(looks_numeric("foo.0x1f"));
    assert!(!looks_numeric("1.2.3.example"));
    assert!(!looks_numeric("0xdeadbeef.example"));
}

#[test]
fn reasons_name_the_range_and_the_embedding() {
    let r = blocked_reason("::ffff:10.0.0.1".parse().unwrap()).unwrap();
    assert_eq!(r.range, "private (10.0.0.0/8)");
    assert_eq!(
        r.embedded,
        Some(("IPv4-mapped", Ipv4Addr::new(10, 0, 0, 1)))
    );
    let r = blocked_reason("2001:0:4136:e378:8000:63bf:f5ff:fffe".parse().unwrap()).unwrap();
    assert_eq!(
        r.embedded,
        Some(("Teredo client", Ipv4Addr::new(10, 0, 0, 1)))
    );
    let r = blocked_reason("169.254.169.254".parse().unwrap()).unwrap();
    assert_eq!(r.range, "cloud metadata");
    let r = blocked_reason("fd00:ec2::254".parse().unwrap()).unwrap();
    assert_eq!(r.range, "cloud metadata");
    let msg = check_ip("[::ffff:7f00:1]", "::ffff:127.0.0.1".parse().unwrap())
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "refused: ::ffff:127.0.0.1 is a loopback address (127.0.0.1 in IPv4-mapped form)"
    );
    let msg = check_ip("lo6.example", "::1".parse().unwrap())
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "refused: lo6.example resolves to ::1, a loopback address"
    );
}

#[tokio::test]
async fn allowlist_lets_listed_hosts_through_and_nothing_else() {
    let allow =
        Allowlist::parse(&["127.0.0.1:8080", "Intranet.Example", "[::1]:9000", " "]).unwrap();
    let resolver = StaticResolver::new()
        .with("intranet.example", &["10.0.0.1".parse().unwrap()])
        .with("other.example", &["10.0.0.1".parse().unwrap()]);
    let guard = SsrfGuard::new(allow, Arc::new(resolver));
    for ok in [
        "http://127.0.0.1:8080/",
        "http://2130706433:8080/",
        "http://intranet.example/",
        "https://intranet.example:8443/a",
        "http://[::1]:9000/",
    ] {
        let c = guard
            .check(ok)
            .await
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert!(c.allowlisted, "{ok}");
    }
    for refused in [
        "http://127.0.0.1:8081/",
        "http://127.0.0.1/",
        "http://[::1]:9001/",
        "http://other.example/",
        "http://user@127.0.0.1:8080/",
        "ftp://127.0.0.1:8080/",
        "http://localhost:8080/",
    ] {
        assert!(guard.check(refused).await.is_err(), "{refused}");
    }
    // The allowlisted name's private answer is pinned only for the
    // allowlisted client.
    assert!(guard.allowed_pins.get("intranet.example").is_some());
    assert!(guard.public_pins.get("intranet.example").is_none());
}

#[test]
fn allowlist_entries_are_validated() {
    assert!(Allowlist::parse(&["host:notaport"]).is_err());
    assert!(Allowlist::parse(&["[::1"]).is_err());
    assert!(Allowlist::parse(&["http://host/"]).is_err());
    assert!(Allowlist::parse(&["user@host"]).is_err());
    let a = Allowlist::parse(&["::1", "HOST.example."]).unwrap();
    assert!(a.allows("[::1]", 1));
    assert!(a.allows("host.example", 443));
}

#[test]
fn errors_never_echo_credentials() {
    let e = classify("http://admin:hunter2@10.0.0.1/", &[]).unwrap_err();
    assert!(!e.to_string().contains("hunter2"));
    let e: WebError = e.into();
    assert!(matches!(e, WebError::Refused(_)));
}

#[tokio::test]
async fn the_connector_resolves_only_pinned_names() {
    use reqwest::dns::Resolve;
    let resolver =
        StaticResolver::new().with("public.example", &["93.184.215.14".parse().unwrap()]);
    let guard = SsrfGuard::new(Allowlist::default(), Arc::new(resolver));
    let dns = guard.pinned_dns(false);
    let unpinned = dns.resolve("public.example".parse().unwrap()).await;
    assert!(unpinned.is_err(), "nothing is pinned before a check");
    guard.check("http://public.example/").await.unwrap();
    let addrs: Vec<SocketAddr> = dns
        .resolve("public.example".parse().unwrap())
        .await
        .unwrap()
        .collect();
    assert_eq!(addrs, vec!["93.184.215.14:0".parse().unwrap()]);
    assert!(
        guard
            .pinned_dns(true)
            .resolve("public.example".parse().unwrap())
            .await
            .is_err()
    );
}
