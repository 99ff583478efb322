# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_dra_global_optspecs
    string join \n json color= q/quiet v/verbose runs-dir= config= h/help V/version
end

function __fish_dra_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_dra_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_dra_using_subcommand
    set -l cmd (__fish_dra_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c dra -n "__fish_dra_needs_command" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_needs_command" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_needs_command" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_needs_command" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_needs_command" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_needs_command" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_needs_command" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_needs_command" -s V -l version -d 'Print version'
complete -c dra -n "__fish_dra_needs_command" -f -a "ask" -d 'Research a question and write a cited report'
complete -c dra -n "__fish_dra_needs_command" -f -a "resume" -d 'Continue an interrupted, crashed or paused run from its records (answer its questions with --answer)'
complete -c dra -n "__fish_dra_needs_command" -f -a "doctor" -d 'Check the setup (keys, endpoint, evidence, runs dir...) and say whether dra can run; --settings lists every setting'
complete -c dra -n "__fish_dra_needs_command" -f -a "tiers" -d 'Show the model tiers and their prices'
complete -c dra -n "__fish_dra_needs_command" -f -a "index" -d 'Index a corpus folder ahead of time (kept in the cache; --list, --prune), and with DRA_EMBED_MODEL embed every passage so `ask --corpus` ranks all of it by meaning'
complete -c dra -n "__fish_dra_needs_command" -f -a "runs" -d 'List recent runs (newest first), or prune old ones with --prune AGE'
complete -c dra -n "__fish_dra_needs_command" -f -a "export" -d 'Export a run\'s cited sources as a bibliography (CSL-JSON, BibTeX or RIS) for Zotero, Pandoc or LaTeX'
complete -c dra -n "__fish_dra_needs_command" -f -a "diff" -d 'What changed between two runs of a question: new, changed and retracted answers, with sources (--exit-code: 9 on change)'
complete -c dra -n "__fish_dra_needs_command" -f -a "watch" -d 'Re-run every question of a file once (--once, for cron or CI), each compared with its previous run; one summary of what changed'
complete -c dra -n "__fish_dra_needs_command" -f -a "eval" -d 'Run the cases of a gold set and print the evaluation metrics'
complete -c dra -n "__fish_dra_needs_command" -f -a "lint-report" -d 'Lint a report\'s citations (and scrub leaks) without running anything'
complete -c dra -n "__fish_dra_needs_command" -f -a "mcp-serve" -d 'Serve dra as an MCP server (stdio, or streamable HTTP with --listen): research, search, fetch, runs'
complete -c dra -n "__fish_dra_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c dra -n "__fish_dra_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c dra -n "__fish_dra_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dra -n "__fish_dra_using_subcommand ask" -l question-file -d 'Read the research question from a file' -r -F
complete -c dra -n "__fish_dra_using_subcommand ask" -l continue -d 'Follow up a finished run: a new turn on its thread that reuses the pages it read, sees what it asked and answered, and keeps its subject and corpus unless the question or flags name others. RUN is its id, a unique prefix, its directory, or `last`' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l skill -d 'Follow this skill of yours (a folder of DRA_SKILLS_DIR): it is read before planning, whether or not its description fits the question' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l since -d 'Compare with an earlier run (its id, a unique prefix, its directory, or `last`): fresh research, then what changed since opens the report and is written to changes.md (as `dra diff`)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l corpus -d 'Research a local corpus instead of the web: a JSON corpus file or a folder of .md/.txt/.html files' -r -F
complete -c dra -n "__fish_dra_using_subcommand ask" -l source-type -d 'The source type of corpus files that declare none (e.g. official for your own documentation; default: other) [env: DRA_CORPUS_SOURCE_TYPE]' -r -f -a "regulator\t''
official\t''
news\t''
press_release\t''
review\t''
forum\t''
blog\t''
other\t''"
complete -c dra -n "__fish_dra_using_subcommand ask" -l mcp -d 'An MCP server: `[LABEL=]URL` (streamable HTTP) or `[LABEL=]COMMAND ARGS` (stdio); repeat for several. Replaces `[[mcp]]` and DRA_MCP_* servers' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l entity -d 'The entity researched (default: the first proper name in the question)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l domain -d 'The entity\'s official domain (identity anchor)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l country -d 'The entity\'s country (identity anchor)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l city -d 'The entity\'s city (identity anchor)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l industry -d 'The entity\'s industry keywords (identity anchor; repeatable or comma-separated)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l exclude -d 'A look-alike entity to exclude (repeatable)' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l tier -d 'Model tier (extra-low, low, mid, high) [env: DRA_MODEL_TIER]' -r -f
complete -c dra -n "__fish_dra_using_subcommand ask" -l base-url -d 'Point the model client at another OpenAI-compatible endpoint for this run; it must be OPENAI_BASE_URL or on DRA_ALLOWED_BASE_URLS' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l domain-prompt -d 'Domain guidance for both system prompts, as a DOMAIN CONTEXT block that cannot override dra\'s own rules: inline TEXT, or @FILE to read it from a file (`@@` for text that starts with `@`) [env: DRA_DOMAIN_PROMPT, DRA_DOMAIN_PROMPT_FILE]' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l max-usd -d 'Dollar ceiling for the run [env: DRA_MAX_USD]' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l deadline -d 'Wall-time ceiling for this invocation, e.g. 90s, 10m [env: DRA_DEADLINE]' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l max-tool-calls -d 'Tool-call ceiling [env: DRA_MAX_TOOL_CALLS]' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l max-parallel -d 'Sub-researchers running at once [env: DRA_MAX_PARALLEL]' -r
complete -c dra -n "__fish_dra_using_subcommand ask" -l answers -d 'Answers to the run\'s first clarifying questions, for scripted runs: a JSON list of strings or one per line, in question order' -r -F
complete -c dra -n "__fish_dra_using_subcommand ask" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand ask" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand ask" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand ask" -l exit-code -d 'With --since: exit 9 when an answer changed, appeared or was retracted, 0 when none did (a failed run keeps its own code)'
complete -c dra -n "__fish_dra_using_subcommand ask" -l web -d 'Research the web with the configured search backend, even offline (online runs without --corpus always do)'
complete -c dra -n "__fish_dra_using_subcommand ask" -l offline -d 'Use the offline extractive model even when an API key is set'
complete -c dra -n "__fish_dra_using_subcommand ask" -l no-memory -d 'Neither read nor write the lessons learnt across runs [env: DRA_MEMORY=false]'
complete -c dra -n "__fish_dra_using_subcommand ask" -l require-tool-call -d 'Fail the run if the model answers without calling any tool [env: DRA_REQUIRE_TOOL_CALL]'
complete -c dra -n "__fish_dra_using_subcommand ask" -l no-clarify -d 'Never ask clarifying questions: research anyway and state the assumption in the report [env: DRA_CLARIFY=false]'
complete -c dra -n "__fish_dra_using_subcommand ask" -l no-input -d 'Never read stdin: clarifying questions end the run (exit 3) instead of being asked on the terminal'
complete -c dra -n "__fish_dra_using_subcommand ask" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand ask" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand ask" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand ask" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand resume" -l answer -d 'An answer to the run\'s clarifying questions (repeat once per question, in order; "" for no preference)' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l answers -d 'The answers in a file: a JSON list of strings, or one per line' -r -F
complete -c dra -n "__fish_dra_using_subcommand resume" -l domain-prompt -d 'The domain prompt for this invocation (TEXT or @FILE, as for `ask`); a changed one re-runs the model calls it affects' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l mcp -d 'An MCP server for this invocation, as for `ask` (repeat for several). A run dir is data, not configuration: servers the run was asked with are connected again only when given here or configured; others are skipped with a warning and their recorded answers replay' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l max-usd -d 'Dollar ceiling for the run [env: DRA_MAX_USD]' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l deadline -d 'Wall-time ceiling for this invocation, e.g. 90s, 10m [env: DRA_DEADLINE]' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l max-tool-calls -d 'Tool-call ceiling [env: DRA_MAX_TOOL_CALLS]' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l max-parallel -d 'Sub-researchers running at once [env: DRA_MAX_PARALLEL]' -r
complete -c dra -n "__fish_dra_using_subcommand resume" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand resume" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand resume" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand resume" -l last -d 'Resume the most recent run'
complete -c dra -n "__fish_dra_using_subcommand resume" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand resume" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand resume" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand resume" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand doctor" -l corpus -d 'Check a corpus deployment: runs read this folder or file (as DRA_CORPUS does)' -r -F
complete -c dra -n "__fish_dra_using_subcommand doctor" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand doctor" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand doctor" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand doctor" -l settings -d 'Also list every setting with its effective value and where it comes from'
complete -c dra -n "__fish_dra_using_subcommand doctor" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand doctor" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand doctor" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand tiers" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand tiers" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand tiers" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand tiers" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand tiers" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand tiers" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand tiers" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand index" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand index" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand index" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand index" -l reindex -d 'Throw away the folder\'s cached index and read every file again'
complete -c dra -n "__fish_dra_using_subcommand index" -l list -d 'List the cached corpus indexes: folder, pages, size on disk, last refresh'
complete -c dra -n "__fish_dra_using_subcommand index" -l prune -d 'Remove the cached indexes whose folder no longer exists'
complete -c dra -n "__fish_dra_using_subcommand index" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand index" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand index" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand index" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand runs" -l prune -d 'Remove the runs started longer ago than AGE (e.g. 30d, 12h, 2w, 90m), after listing them' -r
complete -c dra -n "__fish_dra_using_subcommand runs" -l limit -d 'Most runs listed' -r
complete -c dra -n "__fish_dra_using_subcommand runs" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand runs" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand runs" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand runs" -s y -l yes -d 'Prune without asking (needed when stdin or stderr is not a terminal)'
complete -c dra -n "__fish_dra_using_subcommand runs" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand runs" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand runs" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand runs" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand export" -l format -d 'The bibliography format' -r -f -a "csl-json\t'CSL-JSON: an array of items (Zotero, Pandoc\'s citeproc)'
bibtex\t'BibTeX, as biblatex `@online` entries'
ris\t'RIS, one `TY  - ELEC` record per source'"
complete -c dra -n "__fish_dra_using_subcommand export" -s o -l output -d 'Write to FILE instead of stdout' -r -F
complete -c dra -n "__fish_dra_using_subcommand export" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand export" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand export" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand export" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand export" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand export" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dra -n "__fish_dra_using_subcommand diff" -l last -d 'Compare the newest run with the latest earlier run of the same question (`--last` or `--last 2`)' -r
complete -c dra -n "__fish_dra_using_subcommand diff" -l output -d 'Where to write changes.md (default: the newer run\'s directory)' -r -F
complete -c dra -n "__fish_dra_using_subcommand diff" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand diff" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand diff" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand diff" -l exit-code -d 'Exit 9 when an answer changed, appeared or was retracted, and 0 when none did (as `git diff --exit-code`)'
complete -c dra -n "__fish_dra_using_subcommand diff" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand diff" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand diff" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand diff" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand watch" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand watch" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand watch" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand watch" -l once -d 'Run every question once now, compare each with its previous run and exit (schedule this with cron, a systemd timer or CI)'
complete -c dra -n "__fish_dra_using_subcommand watch" -l exit-code -d 'Exit 9 when an answer changed, appeared or was retracted in any question, 0 when none did (a failed run keeps its own code)'
complete -c dra -n "__fish_dra_using_subcommand watch" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand watch" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand watch" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand watch" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand eval" -l case -d 'Run only the case with this id' -r
complete -c dra -n "__fish_dra_using_subcommand eval" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand eval" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand eval" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand eval" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand eval" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand eval" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand eval" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l sources -d 'sources.json to check citations against (default: the report\'s own Sources section). Entries need only `index` and `url`' -r -F
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l pages -d 'Folder of stored page texts (a run\'s `pages/`): check every cited sentence and quote against the text of the source it cites' -r -F
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand lint-report" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand lint-report" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand lint-report" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand lint-report" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l listen -d 'Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765; port 0 picks a free one, printed on stderr)' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l token -d 'Bearer token HTTP clients must send; prefer DRA_MCP_SERVE_TOKEN or --token-file (a flag shows in `ps`). Without any, HTTP gets a random token, printed on stderr' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l token-file -d 'Read the bearer token from this file (its first line)' -r -F
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l corpus-root -d 'A folder whose files `research` calls may name as `corpus` (repeatable). Over HTTP a call may name none without it; over stdio, any path unless roots are given' -r -F
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l corpus -d 'Research this corpus (a JSON corpus file, or a folder or file of .md/.txt/.html/.pdf) unless a call names its own' -r -F
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l tier -d 'Model tier (extra-low, low, mid, high) [env: DRA_MODEL_TIER]' -r -f
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l max-usd -d 'Dollar ceiling for the run [env: DRA_MAX_USD]' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l deadline -d 'Wall-time ceiling for this invocation, e.g. 90s, 10m [env: DRA_DEADLINE]' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l max-tool-calls -d 'Tool-call ceiling [env: DRA_MAX_TOOL_CALLS]' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l max-parallel -d 'Sub-researchers running at once [env: DRA_MAX_PARALLEL]' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l mcp -d 'An MCP server the runs may use: `[LABEL=]URL` or `[LABEL=]COMMAND ARGS` (repeatable)' -r
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l allow-remote -d 'Allow --listen on an address other than loopback (a bearer token is then required)'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l no-token -d 'Serve HTTP on loopback without a token (any local user can then call dra)'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l all-runs -d '`runs` lists every run in the runs dir, not only those this server made'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l web -d 'Research the web with the configured search backend, even offline'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l offline -d 'Use the offline extractive model even when an API key is set'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand mcp-serve" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand completions" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand completions" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand completions" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand completions" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand completions" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand completions" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand completions" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand man" -l color -d 'When to use colour and live rows' -r -f -a "auto\t''
always\t''
never\t''"
complete -c dra -n "__fish_dra_using_subcommand man" -l runs-dir -d 'Where runs are written [env: DRA_RUNS_DIR]' -r -F
complete -c dra -n "__fish_dra_using_subcommand man" -l config -d 'Config file (default: dra/config.toml in the platform config dir)' -r -F
complete -c dra -n "__fish_dra_using_subcommand man" -l json -d 'Print events as JSON lines on stdout (and nothing else)'
complete -c dra -n "__fish_dra_using_subcommand man" -s q -l quiet -d 'Less output on stderr'
complete -c dra -n "__fish_dra_using_subcommand man" -s v -l verbose -d 'More output on stderr (-v shows thinking, -vv debug logs)'
complete -c dra -n "__fish_dra_using_subcommand man" -s h -l help -d 'Print help'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "ask" -d 'Research a question and write a cited report'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "resume" -d 'Continue an interrupted, crashed or paused run from its records (answer its questions with --answer)'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "doctor" -d 'Check the setup (keys, endpoint, evidence, runs dir...) and say whether dra can run; --settings lists every setting'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "tiers" -d 'Show the model tiers and their prices'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "index" -d 'Index a corpus folder ahead of time (kept in the cache; --list, --prune), and with DRA_EMBED_MODEL embed every passage so `ask --corpus` ranks all of it by meaning'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "runs" -d 'List recent runs (newest first), or prune old ones with --prune AGE'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "export" -d 'Export a run\'s cited sources as a bibliography (CSL-JSON, BibTeX or RIS) for Zotero, Pandoc or LaTeX'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "diff" -d 'What changed between two runs of a question: new, changed and retracted answers, with sources (--exit-code: 9 on change)'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "watch" -d 'Re-run every question of a file once (--once, for cron or CI), each compared with its previous run; one summary of what changed'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "eval" -d 'Run the cases of a gold set and print the evaluation metrics'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "lint-report" -d 'Lint a report\'s citations (and scrub leaks) without running anything'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "mcp-serve" -d 'Serve dra as an MCP server (stdio, or streamable HTTP with --listen): research, search, fetch, runs'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "completions" -d 'Print shell completions'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c dra -n "__fish_dra_using_subcommand help; and not __fish_seen_subcommand_from ask resume doctor tiers index runs export diff watch eval lint-report mcp-serve completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
