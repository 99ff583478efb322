//! How a passage mentions the names of a question: as they are, or only
//! extended into another name. "Ocarina of Time 3D", "Xenoblade Chronicles
//! 2 DLC" and "Tour de France Femmes" are other things than "Ocarina of
//! Time", "Xenoblade Chronicles 2" and "Tour de France": a passage that
//! names the question's subject only that way speaks of the other thing,
//! and "The game was released in June 2011" there is that thing's date.

use std::collections::BTreeSet;

use super::cjk::is_cjk;
use super::spans::is_english_word;

/// One word of a text and whether the text between it and the word before
/// keeps them in one name (spaces, a colon, a trademark sign; not a stop,
/// comma or bracket).
struct Word<'a> {
    text: &'a str,
    joined: bool,
}

fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut gap_joins = false;
    let mut start = None;
    for (i, c) in text.char_indices() {
        // A Chinese or Japanese character is no part of a Latin name.
        if c.is_alphanumeric() && !is_cjk(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(Word {
                text: &text[s..i],
                joined: gap_joins,
            });
            gap_joins = true;
        }
        if is_cjk(c) || !(c.is_whitespace() || matches!(c, ':' | '™' | '®' | '-' | '\'' | '’'))
        {
            gap_joins = false;
        }
    }
    if let Some(s) = start {
        out.push(Word {
            text: &text[s..],
            joined: gap_joins,
        });
    }
    out
}

/// Whether a word that follows a name makes it another name: a number that
/// is not a year ("3D", "2", "II"), unless the question names the year
/// that picks the numbered edition, an acronym
/// ("DLC", "HD"), or a capitalised word that is no English word
/// ("Femmes", "Torna"). A year is a date, not a part of a name, and a
/// capitalised English word is likely a heading's ("Maxwell Award
/// Winners").
fn distinguishes(w: &str, dated: bool) -> bool {
    if is_year(w) {
        return false;
    }
    // A question that names a year picks the edition by it: "Super Bowl
    // LV" is the 2021 Super Bowl, the year says which numbered one.
    let numeral = w.chars().all(|c| c.is_ascii_digit()) || w.chars().all(|c| "IVXLCDM".contains(c));
    if dated && numeral {
        return false;
    }
    if w.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    let upper = w.chars().filter(|c| c.is_uppercase()).count();
    if upper >= 2 && w.chars().all(|c| !c.is_lowercase()) {
        return true;
    }
    w.chars().next().is_some_and(char::is_uppercase) && !is_english_word(&w.to_lowercase())
}

fn is_year(w: &str) -> bool {
    w.len() == 4 && w.chars().all(|c| c.is_ascii_digit()) && w.starts_with(['1', '2'])
}

/// Whether a word after a name goes on with it: a word of the question
/// written as part of a name (a number, a capital, "of" in "Ocarina of
/// Time"), not an ordinary word
/// ("winner" in "2018 Maxwell Award winner Tua Tagovailoa").
fn continues(w: &str, asked: &BTreeSet<String>) -> bool {
    let name_like = w
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    let joiner = matches!(w, "of" | "the" | "de" | "and");
    (name_like || joiner) && asked.contains(&w.to_lowercase())
}

/// How a text mentions one name: (mentions, mentions extended into
/// another name). Words the question itself has ("2" after "Xenoblade
/// Chronicles" in "... Chronicles 2 released") continue the name.
fn mentions_in(text: &str, name: &[String], asked: &BTreeSet<String>) -> (usize, usize) {
    let dated = asked.iter().any(|w| is_year(w));
    let ws = words(text);
    let (mut plain, mut extended) = (0, 0);
    let mut i = 0;
    while i + name.len() <= ws.len() {
        let hit = name
            .iter()
            .enumerate()
            .all(|(k, n)| ws[i + k].text.to_lowercase() == *n && (k == 0 || ws[i + k].joined));
        if !hit {
            if prefixed_part(&ws, i, name, dated) {
                extended += 1;
            }
            i += 1;
            continue;
        }
        let mut j = i + name.len();
        while ws
            .get(j)
            .is_some_and(|w| w.joined && continues(w.text, asked))
        {
            j += 1;
        }
        match ws.get(j) {
            Some(w) if w.joined && distinguishes(w.text, dated) => extended += 1,
            _ => plain += 1,
        }
        i = j.max(i + 1);
    }
    (plain + extended, extended)
}

/// Whether word `i` begins a part of a multi-word name that goes another
/// way ("Maxwell Social" for "Maxwell Award") and is joined to a word
/// before it that makes it another name ("Dora Maxwell Social
/// Responsibility"): the name of someone or something else that shares a
/// word with the asked one.
fn prefixed_part(ws: &[Word<'_>], i: usize, name: &[String], dated: bool) -> bool {
    if name.len() < 2 || ws[i].text.to_lowercase() != name[0] {
        return false;
    }
    let diverges = ws
        .get(i + 1)
        .is_none_or(|w| !w.joined || w.text.to_lowercase() != name[1]);
    diverges
        && ws[i].joined
        && i > 0
        && ws[i - 1]
            .text
            .chars()
            .next()
            .is_some_and(char::is_uppercase)
        && distinguishes(ws[i - 1].text, dated)
}

/// Whether every mention of the question's names in `sentences` extends
/// them into another name (and there is at least one): the passage is
/// about something else of a like name.
pub fn names_only_another(question: &str, names: &[String], sentences: &[&str]) -> bool {
    let asked: BTreeSet<String> = words(question)
        .iter()
        .map(|w| w.text.to_lowercase())
        .collect();
    let (mut all, mut extended) = (0, 0);
    for name in names {
        let parts: Vec<String> = words(name).iter().map(|w| w.text.to_lowercase()).collect();
        if parts.is_empty() {
            continue;
        }
        for s in sentences {
            let (m, e) = mentions_in(s, &parts, &asked);
            all += m;
            extended += e;
        }
    }
    all > 0 && extended == all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_name_extended_by_an_edition_or_a_subtitle_is_another_thing() {
        let q = "when was The Legend of Zelda: Ocarina of Time released?";
        let n = names(&["The Legend of Zelda", "Ocarina of Time"]);
        let remake = [
            "The game was released in June 2011, with digital release arriving in 2012.",
            "The Legend of Zelda: Ocarina of Time 3D.",
        ];
        assert!(names_only_another(q, &n, &remake));
        let original = ["The Legend of Zelda: Ocarina of Time is an action-adventure game."];
        assert!(!names_only_another(q, &n, &original));
        // One plain mention is enough: the passage is about the asked thing.
        let both = [remake[1], original[0]];
        assert!(!names_only_another(q, &n, &both));
        // Never named at all: nothing to say.
        assert!(!names_only_another(q, &n, &["It was released in 1998."]));
    }

    #[test]
    fn latin_names_end_at_chinese_text() {
        let q = "iPhone SE 3的芯片是什么";
        let s = ["但实际上iPhone SE 3起售价429美元起、国行3499元起"];
        assert!(!names_only_another(q, &names(&["SE"]), &s));
    }

    #[test]
    fn the_questions_own_words_years_and_heading_words_continue_a_name() {
        let q = "when was Xenoblade Chronicles 2 released?";
        let n = names(&["Xenoblade Chronicles"]);
        assert!(!names_only_another(
            q,
            &n,
            &["Xenoblade Chronicles 2 is a 2017 game."]
        ));
        assert!(!names_only_another(
            q,
            &n,
            &["Xenoblade Chronicles™ 2 and its pass."]
        ));
        assert!(names_only_another(
            q,
            &n,
            &["It is part of the Xenoblade Chronicles 2 DLC pass."]
        ));
        let q = "Who won the Tour de France?";
        let n = names(&["Tour de France"]);
        assert!(!names_only_another(
            q,
            &n,
            &["Tour de France 2019: Egan Bernal wins."]
        ));
        // A year asked picks the numbered edition; without one, a number
        // names another.
        let lv = ["Super Bowl LV will take place in February 2021 in Tampa."];
        assert!(!names_only_another(
            "Super Bowl 2021 location",
            &names(&["Super Bowl"]),
            &lv
        ));
        assert!(names_only_another(
            "Where is the Super Bowl?",
            &names(&["Super Bowl"]),
            &lv
        ));
        assert!(names_only_another(
            q,
            &n,
            &["The Tour de France Femmes was won by her."]
        ));
        let q = "Who won the Maxwell Award in 2019?";
        let n = names(&["Maxwell Award"]);
        assert!(!names_only_another(
            q,
            &n,
            &["Maxwell Award Winners. Player of the Year."]
        ));
        // A stop or a comma ends the name.
        assert!(!names_only_another(
            q,
            &n,
            &["He won the Maxwell Award. Joe Burrow."]
        ));
        // A person's name that shares a word with the asked one is another
        // name; a place named after it is not told apart by its English
        // words.
        let dora =
            "CUNA announced the 2019 recipients of the Dora Maxwell Social Responsibility ...";
        assert!(names_only_another(q, &n, &[dora]));
        let base = "They met at Maxwell Air Force Base, Alabama.";
        assert!(!names_only_another(q, &n, &[base]));
        // An ordinary word of the question ends the name before a person's.
        let s = "Headlining the list is 2018 Maxwell Award winner Tua Tagovailoa.";
        assert!(!names_only_another(
            "Who is the Maxwell Award winner?",
            &n,
            &[s]
        ));
    }
}
