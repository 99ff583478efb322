//! Chinese and Japanese text has no spaces between words: it is searched
//! and matched by overlapping character pairs (bigrams), the standard
//! segmentation-free unit for CJK retrieval.

/// Whether a character is a CJK ideograph or kana (not punctuation).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // hiragana, katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0x20000..=0x2FA1F)
}

/// Whether a text has CJK characters.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(is_cjk)
}

/// The overlapping character pairs of each run of CJK characters (a run of
/// one character is kept as it is), in order.
pub fn bigrams(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The character pairs of `text` that join two words rather than sit in
/// one: within a run, a pair no more common (by `df`) than the pairs on
/// both sides of it ("房冠" between "票房" and "冠军"). Words recur; the
/// seams between them, rare by chance, would weigh as the rarest terms of a
/// question, and a seam inside a compound ("济增" of "经济增长") says no
/// more than the words on both sides.
pub fn seams(text: &str, df: &dyn Fn(&str) -> Option<usize>) -> Vec<String> {
    let text = without_question_words(text);
    let mut out = Vec::new();
    for run in text.split(|c: char| !is_cjk(c)).filter(|r| !r.is_empty()) {
        let chars: Vec<char> = run.chars().collect();
        let pairs: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
        for w in pairs.windows(3) {
            if let (Some(a), Some(b), Some(c)) = (df(&w[0]), df(&w[1]), df(&w[2]))
                && b <= a
                && b <= c
            {
                out.push(w[1].clone());
            }
        }
    }
    out
}

/// Question words and phrases ("多少钱", "什么时候", "分别"): what a
/// question asks with, never what a source says of it.
const QUESTION_WORDS: &[&str] = &[
    "什么时候",
    "多少钱",
    "为什么",
    "是什么",
    "是多少",
    "是哪",
    "是谁",
    "有哪些",
    "哪一年",
    "哪一天",
    "什么",
    "多少",
    "哪里",
    "哪儿",
    "哪个",
    "哪些",
    "哪部",
    "哪位",
    "哪家",
    "怎么",
    "怎样",
    "如何",
    "是否",
    "分别",
    "谁",
    "几",
    "吗",
    "呢",
    "哪",
];

/// `text` with its question words as spaces, so that no character pair
/// spans a question word and the word beside it ("少钱" of "多少钱").
pub fn without_question_words(text: &str) -> std::borrow::Cow<'_, str> {
    if !QUESTION_WORDS.iter().any(|w| text.contains(w)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for w in QUESTION_WORDS {
        out = out.replace(w, " ");
    }
    std::borrow::Cow::Owned(out)
}

/// Bigrams that carry no content: particles and question words, so "的时间"
/// does not match every sentence with "的".
pub fn is_function_bigram(b: &str) -> bool {
    const FUNCTION_CHARS: &[char] = &[
        '的', '了', '是', '在', '和', '与', '及', '或', '吗', '呢', '什', '么', '哪', '谁', '几',
        '多', '少', '何', '为', '有', '这', '那', '个', '其', '之', '也', '就', '都', '而', '被',
        '把', '对', '将', '从', '由', '于', '以', '等', '一', '次',
    ];
    b.chars().all(|c| FUNCTION_CHARS.contains(&c))
}

/// A Chinese or Japanese question asking several things, as one question
/// per thing: its clauses ("X是什么？它的导演是谁？"), and the items its
/// conjunction joins, each with the words they share ("2021年香港和澳门的
/// GDP增长率" asks "2021年香港的GDP增长率" and "2021年澳门的GDP增长率").
/// A question asking one thing is returned as it is.
pub fn sub_questions(question: &str) -> Vec<String> {
    let clauses = clauses(question);
    let mut out: Vec<String> = Vec::new();
    for c in &clauses {
        for part in distributed(c, 2) {
            if !out.contains(&part) {
                out.push(part);
            }
        }
    }
    out.truncate(MAX_PARTS);
    if out.is_empty() {
        out.push(question.trim().to_string());
    }
    out
}

/// The most sub-questions one question is read as.
const MAX_PARTS: usize = 4;

/// The clauses of a question that each ask something, a later one opening
/// with a pronoun given the first one's subject ("它的导演是谁" of
/// "《X》是什么类型的电影" asks "《X》的导演是谁").
fn clauses(question: &str) -> Vec<String> {
    let pieces: Vec<&str> = question
        .split(['？', '?', '；', ';', '。', '，', ',', '!', '！'])
        .map(str::trim)
        .filter(|p| has_cjk(p))
        .collect();
    let Some(first) = pieces.first() else {
        return Vec::new();
    };
    // The subject: a title in 《》, else what comes before the first 的/是.
    let subject = first
        .split_once('《')
        .and_then(|(_, rest)| rest.split_once('》'))
        .map(|(t, _)| format!("《{t}》"))
        .or_else(|| {
            let cut = first.find(['的', '是'])?;
            Some(first[..cut].to_string()).filter(|s| !s.is_empty())
        });
    pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let Some(subject) = subject.as_deref().filter(|_| i > 0) else {
                return p.to_string();
            };
            match p.strip_prefix(['它', '其', '他', '她']) {
                Some(rest) => format!("{subject}{rest}"),
                None if !p.contains(subject) => format!("{subject}{p}"),
                None => p.to_string(),
            }
        })
        .collect()
}

/// Conjunctions joining two items of a question.
const CONJUNCTIONS: &[&str] = &["以及", "和", "与", "及", "跟", "、"];

/// Characters an item of a conjunction does not run past.
fn ends_item(c: char) -> bool {
    matches!(
        c,
        '的' | '分' | '是' | '在' | '获' | '有' | '谁' | '中' | '年' | '各' | '都'
    ) || !is_cjk(c)
}

/// Words a conjunction character is part of ("和平", "共和国", "涉及").
fn in_a_word(before: Option<char>, conj: &str, after: Option<char>) -> bool {
    let pair = |a: char, b: &str| format!("{a}{b}");
    let joined_before = before.is_some_and(|b| {
        [
            "共和", "总和", "温和", "缓和", "饱和", "参与", "给与", "涉及", "普及", "以及",
        ]
        .contains(&pair(b, conj).as_str())
    });
    let joined_after = after.is_some_and(|a| {
        ["和平", "和谐", "和解", "和睦", "及时", "及格", "与会"]
            .contains(&format!("{conj}{a}").as_str())
    });
    joined_before || joined_after
}

/// A clause whose conjunction joins two items, as one clause per item with
/// the words they share; `depth` more conjunctions are read in each.
fn distributed(clause: &str, depth: usize) -> Vec<String> {
    if depth == 0 {
        return vec![clause.to_string()];
    }
    let Some((at, conj)) = conjunction(clause) else {
        return vec![clause.to_string()];
    };
    let (left, right) = (&clause[..at], &clause[at + conj.len()..]);
    let l: Vec<char> = left.chars().collect();
    let r: Vec<char> = right.chars().collect();
    let (a, b) = item_lengths(&l, &r);
    if a == 0 || b == 0 {
        return vec![clause.to_string()];
    }
    let first: String = l.iter().chain(r[b..].iter()).collect();
    let second: String = l[..l.len() - a].iter().chain(r.iter()).collect();
    let mut out = distributed(&first, depth - 1);
    out.extend(distributed(&second, depth - 1));
    out
}

/// The first conjunction between two items: its byte offset and text.
fn conjunction(clause: &str) -> Option<(usize, &'static str)> {
    let mut in_title = false;
    for (i, c) in clause.char_indices() {
        match c {
            '《' | '“' | '「' => in_title = true,
            '》' | '”' | '」' => in_title = false,
            _ => {}
        }
        if in_title || i == 0 {
            continue;
        }
        let rest = &clause[i..];
        let Some(conj) = CONJUNCTIONS.iter().find(|k| rest.starts_with(**k)) else {
            continue;
        };
        let before = clause[..i].chars().next_back();
        let after = rest[conj.len()..].chars().next();
        if after.is_none() || in_a_word(before, conj, after) {
            continue;
        }
        return Some((i, conj));
    }
    None
}

/// How many characters the items before and after a conjunction have. A
/// number or a Latin word is an item of its own ("2022年和2023年", "CBA和
/// NBA"); items ending alike end at the same character ("德国队和法国队");
/// else each item runs to the nearest word it does not run past, and the
/// two are taken as long as the shorter ("香港和澳门的", "美国和中国分别").
fn item_lengths(l: &[char], r: &[char]) -> (usize, usize) {
    let run_back = |f: &dyn Fn(char) -> bool| l.iter().rev().take_while(|c| f(**c)).count();
    let run_fwd = |f: &dyn Fn(char) -> bool| r.iter().take_while(|c| f(**c)).count();
    let digit = |c: char| c.is_ascii_digit();
    let latin = |c: char| c.is_ascii_alphanumeric();
    // "2022年和2023年": digits and their unit.
    if let (Some(&last), Some(&first)) = (l.last(), r.first()) {
        let unit = |c: char| matches!(c, '年' | '月' | '日' | '号');
        if (digit(last) || unit(last)) && digit(first) {
            let a = usize::from(unit(last)) + {
                let t = if unit(last) { &l[..l.len() - 1] } else { l };
                t.iter().rev().take_while(|c| digit(**c)).count()
            };
            let digits = run_fwd(&digit);
            let b = digits + usize::from(r.get(digits).copied().is_some_and(unit) && unit(last));
            return (a, b);
        }
        if latin(last) && latin(first) {
            return (run_back(&latin), run_fwd(&latin));
        }
    }
    let back = run_back(&|c| !ends_item(c));
    // Items ending alike: the character the left item ends with, soon after.
    if let Some(&last) = l.last()
        && back > 0
        && let Some(k) = r.iter().take(6).position(|&c| c == last)
        && k > 0
    {
        return (back.min(k + 1 + 2), k + 1);
    }
    let fwd = run_fwd(&|c| !ends_item(c));
    let n = back.min(fwd);
    (n, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigrams_cover_runs_and_skip_other_scripts() {
        assert_eq!(bigrams("香港立法会"), vec!["香港", "港立", "立法", "法会"]);
        assert_eq!(bigrams("A股 上涨"), vec!["股", "上涨"]);
        assert!(bigrams("plain English").is_empty());
        assert!(has_cjk("会议 meeting"));
        assert!(!has_cjk("Zürich"));
        assert!(is_function_bigram("的了"));
        assert!(!is_function_bigram("时间"));
    }
    #[test]
    fn conjoined_items_become_one_question_each() {
        let parts = |q: &str| sub_questions(q);
        assert_eq!(
            parts("2031年甲城和乙镇的GDP增长率"),
            vec!["2031年甲城的GDP增长率", "2031年乙镇的GDP增长率"]
        );
        assert_eq!(
            parts("2031年和2032年灯会首日人数"),
            vec!["2031年灯会首日人数", "2032年灯会首日人数"]
        );
        assert_eq!(
            parts("红星队和蓝月队在哪个组"),
            vec!["红星队在哪个组", "蓝月队在哪个组"]
        );
        assert_eq!(parts("ABC和XYZ的总部"), vec!["ABC的总部", "XYZ的总部"]);
        assert_eq!(
            parts("灯会的开始和结束时间是什么时候？"),
            vec!["灯会的开始时间是什么时候", "灯会的结束时间是什么时候"]
        );
        // A word with a conjunction's character in it joins nothing.
        assert_eq!(parts("和平奖的得主是谁"), vec!["和平奖的得主是谁"]);
        assert_eq!(parts("一个问题"), vec!["一个问题"]);
    }

    #[test]
    fn a_later_clause_gets_the_first_one_s_subject() {
        assert_eq!(
            sub_questions("《远山》是什么类型的电影？它的导演是谁？"),
            vec!["《远山》是什么类型的电影", "《远山》的导演是谁"]
        );
        assert_eq!(
            sub_questions("甲机的芯片是什么，起售价多少"),
            vec!["甲机的芯片是什么", "甲机起售价多少"]
        );
    }

    proptest::proptest! {
        #[test]
        fn any_question_gives_one_to_four_parts(q in "[甲乙和与及的是年0-9A、？，]{0,24}") {
            let parts = sub_questions(&q);
            proptest::prop_assert!(!parts.is_empty() && parts.len() <= MAX_PARTS);
        }
    }
    #[test]
    fn a_pair_rarer_than_both_neighbours_is_a_seam() {
        let df = |b: &str| match b {
            "票房" => Some(9),
            "房冠" => Some(1),
            "冠军" => Some(5),
            _ => None,
        };
        assert_eq!(seams("票房冠军是谁", &df), vec!["房冠"]);
        // A word of three characters has no pair between two others.
        assert!(seams("英伟达", &|_| Some(3)).is_empty());
        // A pair more common than a neighbour is a word of its own.
        assert!(seams("票房冠军", &|b| Some(if b == "房冠" { 6 } else { 5 })).is_empty());
    }
}
