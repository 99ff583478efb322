//! Answers, not quotes (issue 20): a question asking for a value is
//! answered by the value, first, with the sources that agree; when the
//! sources do not say, the report says so and the run ends `not_answered`;
//! an inferred subject that no page names gets no report about what the
//! pages were about; a question in Chinese is researched, not questioned.

use std::path::Path;

use super::common::{TestHome, section};

/// Writes a folder corpus of Markdown notes.
fn corpus(sb: &TestHome, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = sb.dir.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// Runs `dra ask` offline over `corpus`; returns the exit code and report.md.
fn ask(sb: &TestHome, corpus: &Path, question: &str) -> (i32, String) {
    sb.ask_offline(corpus, question)
}

#[test]
fn the_sentence_holding_the_value_answers_not_the_one_repeating_the_question() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[(
            "acme.md",
            "# Acme Widgets\n\nAcme Widgets charges INR 400 per widget. Priya Nair is the chief executive who leads Acme Widgets since 2023.\n",
        )],
    );
    let (code, report) = ask(&sb, &dir, "Who leads Acme Widgets?");
    assert_eq!(code, 0, "{report}");
    let answer = section(&report, "Answer");
    assert!(
        answer.trim_start().starts_with("**Priya Nair**"),
        "{report}"
    );
    assert!(!answer.contains("INR 400"), "{report}");
    assert!(!report.contains("disputed"), "{report}");
}

#[test]
fn sources_agreeing_on_a_value_are_counted_not_contested() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[
            (
                "a.md",
                "# Harbour bridge\n\nThe Tollan harbour bridge opened to traffic on 3 March 2029, two years late.\n",
            ),
            (
                "b.md",
                "# City news\n\nAfter delays, the Tollan harbour bridge opened on March 3, 2029, the council said.\n",
            ),
            (
                "c.md",
                "# Construction diary\n\nWork on the Tollan harbour bridge began on 1 June 2025 with the first pier.\n",
            ),
        ],
    );
    let (code, report) = ask(&sb, &dir, "When did the Tollan harbour bridge open?");
    assert_eq!(code, 0, "{report}");
    let answer = section(&report, "Answer");
    assert!(
        answer.contains("3 March 2029") || answer.contains("March 3, 2029"),
        "{report}"
    );
    assert!(answer.contains("2 independent sources agree"), "{report}");
    assert!(!answer.contains("1 June 2025"), "{report}");
}

#[test]
fn a_question_asking_which_ones_is_answered_by_the_sentence_naming_them() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[
            (
                "kinds.md",
                "# Brine store kinds

Brine can build stores while using several CPUs. Brine provides several store kinds: Ledger, Heap, Ring, Burst, and the plugin Vault. Each store kind suits other access patterns.
",
            ),
            (
                "create.md",
                "# CREATE STORE

CREATE STORE makes a new store in Brine. The store name must be unique within its schema.
",
            ),
        ],
    );
    let (code, report) = ask(&sb, &dir, "What kinds of stores can I create in Brine?");
    assert_eq!(code, 0, "{report}");
    let answer = section(&report, "Answer");
    // The answer is said first, in the sentence naming the kinds, not
    // behind a lead-in of the strongest quotes.
    assert!(
        answer
            .trim_start()
            .starts_with("\"Brine provides several store kinds: Ledger, Heap, Ring, Burst, and the plugin Vault.\""),
        "{report}"
    );
    assert!(!answer.contains("In short"), "{report}");
    // Several facts about the kinds are not rival answers.
    assert!(!report.contains("## Conflicts"), "{report}");
    assert!(!report.contains("disputed"), "{report}");
}

#[test]
fn when_the_sources_do_not_say_the_report_says_so_and_the_run_ends_not_answered() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[
            (
                "medal.md",
                "# Harwick Medal\n\nThe winner of the 2031 Harwick Medal will be announced at the awards show in December.\n",
            ),
            (
                "rules.md",
                "# Harwick Medal rules\n\nNominations for the Harwick Medal open in March and close in May each year.\n",
            ),
        ],
    );
    let (code, report) = ask(&sb, &dir, "Who won the 2031 Harwick Medal?");
    assert_eq!(code, 8, "{report}");
    assert!(
        section(&report, "Answer")
            .contains("The sources do not say who won the 2031 Harwick Medal."),
        "{report}"
    );
    let events = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
    assert!(events.contains("\"reason\":\"not_answered\""), "{events}");
}

#[test]
fn an_inferred_subject_no_page_names_gets_no_report_about_another_company() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "-q",
            "ask",
            "--no-memory",
            "Is Stripe a reliable payment partner for our startup? Check leadership and pricing.",
        ])
        .output()
        .unwrap();
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert_eq!(out.status.code(), Some(6), "{report}");
    let answer = section(&report, "Answer");
    assert!(
        answer.contains("Nothing in the sources is about Stripe"),
        "{report}"
    );
    assert!(!report.contains("PadmaPay"), "{report}");
}

#[test]
fn a_question_in_chinese_is_researched_not_questioned() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[
            (
                "a.md",
                "# 通车\n\n据市政府介绍，滨江大桥于2029年3月3日正式通车，比原计划晚两年。\n",
            ),
            (
                "b.md",
                "# 开工\n\n滨江大桥工程于2025年6月1日开工建设，总投资约十亿元。\n",
            ),
        ],
    );
    let (code, report) = ask(&sb, &dir, "滨江大桥通车的时间是什么时候？");
    assert_eq!(code, 0, "{report}");
    assert!(
        section(&report, "Answer").contains("2029年3月3日"),
        "{report}"
    );
}

#[test]
fn a_chinese_question_asking_for_two_towns_is_answered_for_each() {
    let sb = TestHome::new();
    let dir = corpus(
        &sb,
        &[
            (
                "a.md",
                "# 甲城经济\n\n甲城统计局发布数据显示，甲城2031年本地生产总值同比上升6.4%。甲城经济的韧性很强。\n",
            ),
            (
                "b.md",
                "# 乙镇经济\n\n乙镇统计局公布，2031年乙镇经济实质增长18%，旅游业全面复苏。\n",
            ),
            (
                "c.md",
                "# 两地旅游\n\n甲城和乙镇都是著名的旅游城市，每年接待游客数百万。\n",
            ),
        ],
    );
    let (code, report) = ask(&sb, &dir, "2031年甲城和乙镇的经济增长率是多少？");
    assert_eq!(code, 0, "{report}");
    let answer = section(&report, "Answer");
    assert!(
        answer.contains("6.4%") && answer.contains("18%"),
        "{report}"
    );
}
