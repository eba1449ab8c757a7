//! Random texts for a spec: likely members (generated from the spec JSON) and their
//! mutations. Which are members is for the oracle to say, not the generator.

use fstc_core::sample::SplitMix64;
use fstc_pda::gbnf::{Expr, Rules};
use serde_json::{Map, Value};

use crate::oracle::{grammar_rules, root_format};

/// Pieces free text and mutations are made of: near-misses of every delimiter.
const PIECES: &[&str] = &[
    "a",
    " ",
    "Hi",
    "\n",
    "é",
    "<",
    ">",
    "/",
    "=",
    "{",
    "}",
    "\"",
    "<f",
    "</",
    "<think>",
    "</think>",
    "<function=",
    "</function>",
    "<tool_call>",
    "</tool_call>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    ",",
    "0",
    "7",
    "x",
];

pub struct Generator<'s> {
    spec: &'s Value,
    extra: Vec<String>,
}

impl<'s> Generator<'s> {
    /// A generator for `spec`; `extra` pieces (the spec's own delimiters) join [`PIECES`].
    pub fn new(spec: &'s Value, extra: Vec<String>) -> Generator<'s> {
        Generator { spec, extra }
    }

    /// A likely member of the spec's language.
    pub fn member(&self, rng: &mut SplitMix64) -> String {
        let root = root_format(self.spec);
        let mut out = String::new();
        self.format(&root, rng, &mut out, 0);
        out
    }

    /// `text` changed a little: a piece inserted, a range deleted, or a range repeated.
    pub fn mutate(&self, text: &str, rng: &mut SplitMix64) -> String {
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let a = bounds[rng.index(bounds.len())];
        let b = bounds[rng.index(bounds.len())];
        let (a, b) = (a.min(b), a.max(b));
        match rng.below(3) {
            0 => format!("{}{}{}", &text[..a], self.piece(rng), &text[a..]),
            1 => {
                let cut = *bounds.iter().find(|&&x| x >= b.min(a + 6)).unwrap();
                format!("{}{}", &text[..a], &text[cut..])
            }
            _ => format!("{}{}", &text[..b], &text[a..]),
        }
    }

    fn piece(&self, rng: &mut SplitMix64) -> String {
        let n = PIECES.len() + self.extra.len();
        let k = rng.index(n);
        if k < PIECES.len() {
            PIECES[k].to_string()
        } else {
            self.extra[k - PIECES.len()].clone()
        }
    }

    fn free(&self, rng: &mut SplitMix64, out: &mut String) {
        for _ in 0..rng.below(4) {
            out.push_str(&self.piece(rng));
        }
    }

    fn format(&self, f: &Value, rng: &mut SplitMix64, out: &mut String, depth: u32) {
        let content = &f["content"];
        match f["type"].as_str().unwrap() {
            "const_string" => out.push_str(f["value"].as_str().unwrap()),
            "json_schema" => {
                let v = value(&f["json_schema"], rng, 0);
                out.push_str(&serde_json::to_string(&v).unwrap());
            }
            "regex" => out.push_str(["", "a", "AB-12", "x1", "2024-01-31"][rng.index(5)]),
            "grammar" => out.push_str(&derive(&grammar_rules(f), rng)),
            "any_text" => self.free(rng, out),
            "sequence" => {
                for e in f["elements"].as_array().unwrap() {
                    self.format(e, rng, out, depth);
                }
            }
            "or" => {
                let list = f["elements"].as_array().unwrap();
                self.format(&list[rng.index(list.len())], rng, out, depth);
            }
            "optional" | "star" | "plus" | "repeat" => {
                let times = match f["type"].as_str().unwrap() {
                    "optional" => rng.below(2),
                    "plus" => 1 + rng.below(2),
                    "repeat" => f["min"].as_u64().unwrap() + rng.below(2),
                    _ => rng.below(3),
                };
                for _ in 0..times.min(if depth > 3 { 1 } else { 3 }) {
                    self.format(content, rng, out, depth + 1);
                }
            }
            "tag" => self.tag(f, rng, out, depth),
            "triggered_tags" => {
                let tags = f["tags"].as_array().unwrap();
                let n = if f["stop_after_first"] == true { 1 } else { 3 };
                if f["at_least_one"] != true {
                    self.free(rng, out);
                }
                for _ in 0..rng.below(n + 1).max(u64::from(f["at_least_one"] == true)) {
                    self.tag(&tags[rng.index(tags.len())], rng, out, depth);
                    if f["stop_after_first"] != true {
                        self.free(rng, out);
                    }
                }
            }
            "tags_with_separator" => {
                let tags = f["tags"].as_array().unwrap();
                for k in 0..rng.below(3) {
                    if k > 0 {
                        out.push_str(f["separator"].as_str().unwrap());
                    }
                    self.tag(&tags[rng.index(tags.len())], rng, out, depth);
                }
            }
            other => panic!("no generator for `{other}`"),
        }
    }

    fn tag(&self, t: &Value, rng: &mut SplitMix64, out: &mut String, depth: u32) {
        out.push_str(t["begin"].as_str().unwrap());
        self.format(&t["content"], rng, out, depth + 1);
        match &t["end"] {
            Value::String(s) => out.push_str(s),
            Value::Array(a) => out.push_str(a[rng.index(a.len())].as_str().unwrap()),
            _ => {}
        }
    }
}

/// A random value shaped by `schema` (mostly valid; the oracle decides).
pub fn value(schema: &Value, rng: &mut SplitMix64, depth: u32) -> Value {
    if let Some(list) = schema.get("enum").and_then(Value::as_array) {
        return list[rng.index(list.len())].clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => {
            let words = [
                "",
                "Paris",
                "a b",
                "é\"q\\",
                "</f>",
                "<tool_call>",
                "\n",
                "x",
            ];
            Value::from(words[rng.index(words.len())])
        }
        Some("integer") => {
            let lo = schema.get("minimum").and_then(Value::as_i64).unwrap_or(-20);
            let hi = schema.get("maximum").and_then(Value::as_i64).unwrap_or(120);
            Value::from(lo + rng.below((hi - lo + 1) as u64) as i64)
        }
        Some("boolean") => Value::from(rng.below(2) == 0),
        Some("array") if depth < 3 => {
            let item = schema.get("items").cloned().unwrap_or(Value::Bool(true));
            (0..rng.below(3))
                .map(|_| value(&item, rng, depth + 1))
                .collect()
        }
        Some("object") if depth < 3 => {
            let mut map = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, s) in props {
                    if required.contains(&k.as_str()) || rng.below(2) == 0 {
                        map.insert(k.clone(), value(s, rng, depth + 1));
                    }
                }
            }
            Value::Object(map)
        }
        _ => Value::from(rng.below(10)),
    }
}

/// A random text the grammar derives: alternatives and repetitions at random, and past a
/// depth the alternatives that finish soonest.
pub fn derive(rules: &Rules, rng: &mut SplitMix64) -> String {
    let heights = heights(rules);
    let mut out = String::new();
    let start = Expr::Ref(rules.start.clone(), None);
    derive_expr(rules, &heights, &start, rng, &mut out, 0);
    out
}

/// Per rule, the fewest nested rule references a derivation of it needs.
fn heights(rules: &Rules) -> std::collections::HashMap<String, u32> {
    let mut h: std::collections::HashMap<String, u32> = rules
        .rules
        .iter()
        .map(|r| (r.name.clone(), u32::MAX))
        .collect();
    for _ in 0..=rules.rules.len() {
        for r in &rules.rules {
            let v = height(&r.body, &h);
            h.insert(r.name.clone(), v);
        }
    }
    h
}

fn height(e: &Expr, h: &std::collections::HashMap<String, u32>) -> u32 {
    match e {
        Expr::Ref(name, _) => h[name].saturating_add(1),
        Expr::Seq(items) => items.iter().map(|x| height(x, h)).max().unwrap_or(0),
        Expr::Alt(items) => items.iter().map(|x| height(x, h)).min().unwrap_or(u32::MAX),
        Expr::Repeat { expr, min, .. } if *min > 0 => height(expr, h),
        _ => 0,
    }
}

fn derive_expr(
    rules: &Rules,
    h: &std::collections::HashMap<String, u32>,
    e: &Expr,
    rng: &mut SplitMix64,
    out: &mut String,
    depth: u32,
) {
    let deep = depth > 6;
    match e {
        Expr::Bytes(b) => out.push_str(std::str::from_utf8(b).unwrap()),
        Expr::Class { ranges, negated } => out.push(class_char(ranges, *negated, rng)),
        Expr::Ref(name, _) => {
            let body = &rules.get(name).unwrap().body;
            derive_expr(rules, h, body, rng, out, depth + 1);
        }
        Expr::Seq(items) => items
            .iter()
            .for_each(|x| derive_expr(rules, h, x, rng, out, depth)),
        Expr::Alt(items) => {
            let pick = if deep {
                items.iter().min_by_key(|x| height(x, h)).unwrap()
            } else {
                &items[rng.index(items.len())]
            };
            derive_expr(rules, h, pick, rng, out, depth);
        }
        Expr::Repeat { expr, min, max, .. } => {
            let extra = if deep { 0 } else { rng.below(3) as u32 };
            let times = max.map_or(min + extra, |m| (min + extra).min(m));
            for _ in 0..times {
                derive_expr(rules, h, expr, rng, out, depth);
            }
        }
        Expr::Dfa(_) => panic!("the generator reads no regex terminal"),
    }
}

/// A character in the class (or, negated, outside it).
fn class_char(ranges: &[(u32, u32)], negated: bool, rng: &mut SplitMix64) -> char {
    let inside = |c: char| {
        ranges
            .iter()
            .any(|&(lo, hi)| lo <= c as u32 && c as u32 <= hi)
    };
    if negated {
        let candidates: Vec<char> = "a Z0_é\"\\-(<>".chars().filter(|&c| !inside(c)).collect();
        return candidates[rng.index(candidates.len())];
    }
    let (lo, hi) = ranges[rng.index(ranges.len())];
    let span = u64::from(hi - lo).min(200);
    (lo..=lo + span as u32)
        .filter_map(char::from_u32)
        .nth(rng.index(span as usize + 1))
        .unwrap_or_else(|| char::from_u32(lo).unwrap())
}
