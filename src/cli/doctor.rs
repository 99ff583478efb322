//! `dra doctor`: every effective setting and where it came from, and the
//! checks that tell whether dra can run here, each problem with its fix.

use std::time::Duration;

use serde_json::json;

use super::{CliResult, Exit, GlobalArgs, print_stdout};
use crate::app;
use crate::config::{Config, Settings, settings};
use crate::corpus::Corpus;

struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Also list every setting with its effective value and where it comes from.
    #[arg(long)]
    pub settings: bool,
    /// Check a corpus deployment: runs read this folder or file (as DRA_CORPUS does).
    #[arg(long, value_name = "PATH")]
    pub corpus: Option<std::path::PathBuf>,
}

pub fn run(g: &GlobalArgs, args: &DoctorArgs) -> CliResult {
    let mut checks = Vec::new();
    let mut flags = std::collections::BTreeMap::new();
    if let Some(p) = &args.corpus {
        flags.insert(settings::CORPUS, p.display().to_string());
    }
    let config = match super::resolve_config(g, flags) {
        Ok(c) => Some(c),
        Err(super::CliError::Usage(e)) | Err(super::CliError::Failure(e)) => {
            checks.push(Check {
                name: "configuration",
                ok: false,
                detail: format!("{e:#}"),
                fix: Some(
                    "correct the value named above (flag, environment, .env or config file)".into(),
                ),
            });
            None
        }
    };
    if let Some(c) = &config {
        run_checks(c, &mut checks);
    }
    let ok = checks.iter().all(|c| c.ok);
    if g.json {
        let settings_json: Vec<_> = config
            .iter()
            .flat_map(|c| c.entries())
            .map(|(k, e)| json!({"key": k, "value": e.value.display(), "origin": e.origin.to_string(), "used": !settings::NOT_USED_YET.contains(&k)}))
            .collect();
        let checks_json: Vec<_> = checks
            .iter()
            .map(|c| json!({"check": c.name, "ok": c.ok, "detail": c.detail, "fix": c.fix}))
            .collect();
        let v = json!({"ok": ok, "settings": settings_json, "checks": checks_json,
            "warnings": config.as_ref().map(|c| c.warnings.clone()).unwrap_or_default()});
        print_stdout(
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()).as_bytes(),
        );
    } else {
        print_stdout(human(g, args, config.as_ref(), &checks, ok).as_bytes());
    }
    Ok(if ok { Exit::Ok } else { Exit::Failure })
}

/// The checks and the verdict first (they fit a terminal), then the
/// warnings, then (with `--settings`) every setting.
fn human(
    g: &GlobalArgs,
    args: &DoctorArgs,
    config: Option<&Config>,
    checks: &[Check],
    ok: bool,
) -> String {
    let colour = super::stdout_is_live(g);
    let paint = |text: &str, good: bool| {
        if colour {
            let s = console::style(text).force_styling(true);
            if good { s.green() } else { s.red().bold() }.to_string()
        } else {
            text.to_string()
        }
    };
    // The verdict leads: it is what a person or CI reads first.
    let failed = checks.iter().filter(|c| !c.ok).count();
    let mut s = if ok {
        format!(
            "{} ({} passed)\n\nChecks:\n",
            paint("dra can run here.", true),
            crate::count(checks.len(), "check")
        )
    } else {
        format!(
            "{} ({} of {} failed: see [FAIL] below)\n\nChecks:\n",
            paint("dra cannot run until the problems below are fixed.", false),
            failed,
            crate::count(checks.len(), "check")
        )
    };
    for c in checks {
        s.push_str(&format!(
            "  [{}] {}: {}\n",
            paint(if c.ok { "ok" } else { "FAIL" }, c.ok),
            c.name,
            c.detail
        ));
        if let Some(fix) = &c.fix {
            s.push_str(&format!("        fix: {fix}\n"));
        }
    }
    if let Some(c) = config {
        for w in &c.warnings {
            s.push_str(&format!("warning: {w}\n"));
        }
        if args.settings {
            s.push('\n');
            s.push_str(&settings_table(c));
        } else {
            s.push_str(&format!(
                "\n{} settings: `dra doctor --settings` lists each with its value and where it comes from.\n",
                settings::SETTINGS.len()
            ));
        }
    }
    s
}

/// Every setting: its effective value and origin.
fn settings_table(c: &Config) -> String {
    let mut s = String::from("Settings (effective value, origin):\n");
    for spec in settings::SETTINGS {
        let unused = if settings::NOT_USED_YET.contains(&spec.key) {
            " (not used yet)"
        } else {
            ""
        };
        let row = match c.get(spec.key) {
            Some(e) => format!("{:<32} {}{unused}", e.value.display(), e.origin),
            None if spec.is_secret() => format!("{:<32} -", "not set"),
            // What runs use: the tier's cap.
            None if spec.key == settings::MAX_USD => format!(
                "{:<32} from the tier ({})",
                c.tier().default_max_usd,
                c.tier().name
            ),
            None => format!("{:<32} -", "(unset)"),
        };
        s.push_str(&format!("  {:<30} {row}\n", spec.key));
    }
    s
}

fn run_checks(c: &Config, checks: &mut Vec<Check>) {
    let key = c.api_key();
    checks.push(Check {
        name: "model",
        ok: true,
        detail: match key {
            Some(_) => format!(
                "API key set; tier {} (research {}, sub-agent {}, utility {})",
                c.tier().name,
                c.tier().research.slug,
                c.tier().subagent.slug,
                c.tier().utility.slug
            ),
            None => "no API key: dra runs offline with its deterministic extractive model (set OPENAI_API_KEY or OPENROUTER_API_KEY for real models)".into(),
        },
        fix: None,
    });
    let base = c.text(settings::OPENAI_BASE_URL).unwrap_or("").to_string();
    let allowed = c.list(settings::ALLOWED_BASE_URLS);
    checks.push(Check {
        name: "base url",
        ok: true,
        detail: if allowed.is_empty() {
            format!("{base} (no extra base URLs allowed for per-run overrides)")
        } else {
            format!(
                "{base}; per-run overrides allowed to: {}",
                allowed.join(", ")
            )
        },
        fix: None,
    });
    if let Some(key) = key {
        checks.push(reachability(&base, key.expose()));
    }
    let typed = Settings::from_config(c);
    let search = crate::web::BACKENDS
        .iter()
        .filter(|b| b.configured(&typed.search))
        .filter_map(|b| b.keys.first().copied())
        .collect::<Vec<_>>();
    let configured = if search.is_empty() {
        "no web search backend configured".to_string()
    } else {
        format!("web search configured: {}", search.join(", "))
    };
    // The same decision `dra ask` makes for a run without --corpus or --web.
    checks.push(match app::evidence_source(&typed, &app::Source::Default) {
        Ok(app::EvidenceSource::Web) => Check {
            name: "evidence",
            ok: true,
            detail: format!("{configured}; runs search the web (--corpus PATH for local documents)"),
            fix: None,
        },
        Ok(app::EvidenceSource::ToolsOnly) => Check {
            name: "evidence",
            ok: true,
            detail: format!("{configured}; online runs use the MCP servers and custom tools below as their only sources (--corpus PATH for local documents)"),
            fix: None,
        },
        Ok(app::EvidenceSource::Corpus(path)) => corpus_check(&typed, &path),
        Ok(_) => Check {
            name: "evidence",
            ok: true,
            detail: format!("{configured}; offline runs read the embedded corpus unless given --corpus PATH or --web"),
            fix: None,
        },
        Err(e) => Check {
            name: "evidence",
            ok: false,
            detail: format!("{configured}; online runs without --corpus stop: {e}"),
            fix: Some(format!("set {}, pass --corpus PATH, or --offline", crate::web::backend_keys_hint())),
        },
    });
    mcp_checks(&typed.mcp.servers, checks);
    checks.push(sandbox_check(&typed.exec));
    let runs = c.runs_dir();
    checks.push(match crate::config::dir_is_writable(&runs) {
        Ok(()) => Check {
            name: "runs dir",
            ok: true,
            detail: format!("{} is writable", runs.display()),
            fix: None,
        },
        Err(e) => Check {
            name: "runs dir",
            ok: false,
            detail: format!("{} is not writable: {e}", runs.display()),
            fix: Some("point --runs-dir or DRA_RUNS_DIR at a writable directory".into()),
        },
    });
    skill_checks(&typed, checks);
    custom_tools_checks(&typed.custom_tools, checks);
    checks.push(match Corpus::embedded() {
        Ok(corpus) => Check {
            name: "offline corpus",
            ok: true,
            detail: format!("embedded corpus loads ({} documents)", corpus.len()),
            fix: None,
        },
        Err(e) => Check {
            name: "offline corpus",
            ok: false,
            detail: e.to_string(),
            fix: Some("this build is broken: reinstall dra".into()),
        },
    });
}

/// A deployment's corpus (DRA_CORPUS or `--corpus`): it must load (a
/// folder through its cached index, brought up to date, as a run would).
fn corpus_check(typed: &Settings, path: &std::path::Path) -> Check {
    match app::load_corpus(path, &app::corpus_options(typed), false).map(|(c, _)| c) {
        Ok(c) if !c.is_empty() => Check {
            name: "evidence",
            ok: true,
            detail: format!(
                "runs read the corpus {} ({}; DRA_CORPUS or --corpus), no search backend needed",
                path.display(),
                crate::count(c.len(), "document")
            ),
            fix: None,
        },
        Ok(_) => Check {
            name: "evidence",
            ok: false,
            detail: format!("the corpus {} holds no document", path.display()),
            fix: Some(
                "point DRA_CORPUS or --corpus at a folder of .md, .txt, .html or .pdf files".into(),
            ),
        },
        Err(e) => Check {
            name: "evidence",
            ok: false,
            detail: format!("the corpus {} does not load: {e}", path.display()),
            fix: Some("point DRA_CORPUS or --corpus at a readable folder or corpus file".into()),
        },
    }
}

/// The skills a run would load (name, description, path) and each folder
/// skipped with why. A skipped skill does not stop a run (it warns), so it
/// is not a failure here either, but it comes with a fix.
fn skill_checks(settings: &Settings, checks: &mut Vec<Check>) {
    let dirs = app::skills_dirs(settings);
    let set = crate::skills::load(&dirs);
    let looked: Vec<String> = dirs.iter().map(|d| d.path.display().to_string()).collect();
    checks.push(Check {
        name: "skills",
        ok: true,
        detail: if set.is_empty() {
            format!(
                "no skills in {} (optional: folders with a SKILL.md, see skills/README.md)",
                looked.join(" or ")
            )
        } else {
            format!(
                "{} skill(s) from {}; runs offer read_skill",
                set.skills.len(),
                set.searched
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        },
        fix: None,
    });
    for k in &set.skills {
        checks.push(Check {
            name: "skill",
            ok: true,
            detail: format!(
                "{}: {} ({})",
                k.name,
                k.description,
                crate::document::sanitize_line(&k.path.display().to_string())
            ),
            fix: None,
        });
    }
    for k in &set.skipped {
        checks.push(Check {
            name: "skill skipped",
            ok: true,
            detail: format!(
                "{}: {}",
                crate::document::sanitize_line(&k.path.display().to_string()),
                k.reason
            ),
            fix: Some(if k.path.ends_with(crate::skills::SKILL_FILE) {
                format!(
                    "open SKILL.md with `---`, `name: NAME`, `description: ...`, `---`, then the instructions (at most {} bytes, names unique), or move the folder out",
                    crate::skills::MAX_SKILL_BYTES
                )
            } else {
                "create the folder, or point DRA_SKILLS_DIR at a folder of skills".into()
            }),
        });
    }
}

/// Connects to every configured MCP server at once with a short timeout and
/// reports its tools, or the error with a fix.
fn mcp_checks(servers: &[crate::mcp::McpServer], checks: &mut Vec<Check>) {
    if servers.is_empty() {
        return;
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            checks.push(Check {
                name: "mcp",
                ok: false,
                detail: format!("cannot start the async runtime: {e}"),
                fix: None,
            });
            return;
        }
    };
    let results = rt.block_on(async {
        let results = crate::mcp::connect_all(servers, crate::mcp::DOCTOR_TIMEOUT).await;
        let mut out = Vec::new();
        for (server, r) in results {
            out.push(match r {
                Ok(conn) => {
                    let names: Vec<String> =
                        conn.tools.iter().map(|t| t.name.to_string()).collect();
                    let ms = conn.startup.as_millis();
                    conn.close().await;
                    (server, Ok((names, ms)))
                }
                Err(e) => {
                    let fix = e.fix(&server);
                    (server, Err((e.to_string(), fix)))
                }
            });
        }
        out
    });
    for (server, r) in results {
        let target = server.target();
        checks.push(match r {
            Ok((names, ms)) => Check {
                name: "mcp server",
                ok: true,
                detail: format!(
                    "{} ({target}, from {}): {} in {ms} ms: {}",
                    server.label,
                    server.origin,
                    crate::count(names.len(), "tool"),
                    names.join(", ")
                ),
                fix: None,
            },
            Err((e, fix)) => Check {
                name: "mcp server",
                ok: false,
                detail: format!("{} ({target}, from {}): {e}", server.label, server.origin),
                fix: Some(fix),
            },
        });
    }
}

/// Code execution: the sandbox dra would use, or why there is none.
fn sandbox_check(exec: &crate::config::ExecSettings) -> Check {
    let checked = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|rt| rt.block_on(crate::sandbox::check(exec)));
    let (ok, detail, fix) =
        checked.unwrap_or_else(|e| (false, format!("cannot start the async runtime: {e}"), None));
    Check {
        name: "sandbox",
        ok,
        detail,
        fix,
    }
}

/// Describes every custom tool at once (as a run would) and lists each
/// with its file and description, or why it is left out and the fix.
fn custom_tools_checks(ct: &crate::config::CustomToolsSettings, checks: &mut Vec<Check>) {
    use crate::custom_tools;
    let Some(dir) = &ct.dir else {
        checks.push(Check {
            name: "custom tools",
            ok: true,
            detail: "./custom_tools does not exist: no custom tools (optional; set DRA_CUSTOM_TOOLS_DIR)".into(),
            fix: None,
        });
        return;
    };
    let toolbox = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|rt| {
            rt.block_on(custom_tools::discover(dir))
                .map_err(|e| e.to_string())
        });
    let toolbox = match toolbox {
        Ok(t) => t,
        Err(e) => {
            checks.push(Check {
                name: "custom tools",
                ok: false,
                detail: format!("{}: {e}", dir.display()),
                fix: Some("point DRA_CUSTOM_TOOLS_DIR at a readable folder of executables".into()),
            });
            return;
        }
    };
    checks.push(Check {
        name: "custom tools",
        ok: true,
        detail: format!(
            "{}: {}, {} left out (timeout {:?} per call)",
            dir.display(),
            crate::count(toolbox.tools.len(), "tool"),
            toolbox.broken.len(),
            ct.timeout
        ),
        fix: None,
    });
    for t in &toolbox.tools {
        let description: String = crate::document::single_line(&t.description)
            .chars()
            .take(160)
            .collect();
        checks.push(Check {
            name: "custom tool",
            ok: true,
            detail: format!("{} ({}): {description}", t.name, t.file.display()),
            fix: None,
        });
    }
    for b in &toolbox.broken {
        checks.push(Check {
            name: "custom tool",
            ok: false,
            detail: format!("{}: {}", b.file.display(), b.why),
            fix: Some(b.fix.clone()),
        });
    }
}

/// A short authenticated GET of `<base>/models`.
fn reachability(base: &str, key: &str) -> Check {
    let url = format!("{}/models", base.trim_end_matches('/'));
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|rt| {
            rt.block_on(async {
                let client = reqwest::Client::builder()
                    .timeout(Duration::from_secs(5))
                    .build()
                    .map_err(|e| e.to_string())?;
                client
                    .get(&url)
                    .bearer_auth(key)
                    .send()
                    .await
                    .map(|r| r.status())
                    // reqwest errors can carry the URL but never the header.
                    .map_err(|e| e.without_url().to_string())
            })
        });
    match result {
        Ok(status) if status.is_success() => Check {
            name: "endpoint",
            ok: true,
            detail: format!("{url} answered {status}"),
            fix: None,
        },
        Ok(status) if status.as_u16() == 401 || status.as_u16() == 403 => Check {
            name: "endpoint",
            ok: false,
            detail: format!("{url} rejected the key ({status})"),
            fix: Some("check OPENAI_API_KEY / OPENROUTER_API_KEY for this endpoint".into()),
        },
        Ok(status) => Check {
            name: "endpoint",
            ok: true,
            detail: format!("{url} is reachable (answered {status})"),
            fix: None,
        },
        Err(e) => Check {
            name: "endpoint",
            ok: false,
            detail: format!("{url} is unreachable: {e}"),
            fix: Some(
                "check OPENAI_BASE_URL and the network, or unset the key to run offline".into(),
            ),
        },
    }
}
