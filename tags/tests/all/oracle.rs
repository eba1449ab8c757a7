//! The tests' own reading of a structural tag, written from docs/structural-tags.md and
//! sharing nothing with fstc-tags: it reads the spec JSON itself and computes, for a
//! format and a start position, every position where a match of the format can end.
//! JSON bodies are checked with serde_json (the output form: compact, canonical, members
//! in schema order) and the `jsonschema` crate; regexes with the `regex` crate; grammar
//! bodies with fstc-pda's tests' Earley recognizer over the grammar as parsed.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use crate::earley::Earley;

type Ends = BTreeSet<usize>;

pub struct Oracle<'t> {
    text: &'t [u8],
    memo: HashMap<(usize, usize, Vec<String>), Ends>,
    validators: HashMap<String, jsonschema::Validator>,
    grammars: HashMap<String, Earley>,
}

/// Whether `text` is in the language of the structural tag `spec` (either spelling).
pub fn accepts(spec: &Value, text: &[u8]) -> bool {
    let root = root_format(spec);
    let mut oracle = Oracle {
        text,
        memo: HashMap::new(),
        validators: HashMap::new(),
        grammars: HashMap::new(),
    };
    oracle.ends(&root, 0, &[]).contains(&text.len())
}

/// The format object of a spec; the legacy spelling as the triggered tags it means.
pub fn root_format(spec: &Value) -> Value {
    if let Some(structures) = spec.get("structures") {
        let tags: Vec<Value> = structures
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                json!({"type": "tag", "begin": s["begin"], "end": s["end"],
                       "content": {"type": "json_schema", "json_schema": s["schema"]}})
            })
            .collect();
        return json!({"type": "triggered_tags", "triggers": spec["triggers"], "tags": tags});
    }
    if spec["type"] == "structural_tag" {
        return spec["format"].clone();
    }
    spec.clone()
}

fn strs(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
        _ => Vec::new(),
    }
}

impl<'t> Oracle<'t> {
    /// Every end of a match of `f` starting at `i`; `ends` are the enclosing tag's ends.
    fn ends(&mut self, f: &Value, i: usize, ends: &[String]) -> Ends {
        let key = (f as *const Value as usize, i, ends.to_vec());
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let out = self.compute(f, i, ends);
        self.memo.insert(key, out.clone());
        out
    }

    fn compute(&mut self, f: &Value, i: usize, ends: &[String]) -> Ends {
        match f["type"].as_str().unwrap() {
            "const_string" => self.literal(f["value"].as_str().unwrap(), i),
            "json_schema" => self.json(&f["json_schema"], i),
            "regex" => self.regex(f["pattern"].as_str().unwrap(), i),
            "grammar" => self.grammar(f, i),
            "any_text" => {
                let mut banned = strs(&f["excludes"]);
                banned.extend(ends.iter().cloned());
                let max = f
                    .get("max_chars")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize);
                self.free(i, &banned, max)
            }
            "sequence" => {
                let mut at: Ends = [i].into();
                for e in f["elements"].as_array().unwrap() {
                    at = self.then(&at, e, ends);
                }
                at
            }
            "or" => {
                let mut out = Ends::new();
                for e in f["elements"].as_array().unwrap() {
                    out.extend(self.ends(e, i, ends));
                }
                out
            }
            "optional" => {
                let mut out = self.ends(&f["content"], i, ends);
                out.insert(i);
                out
            }
            "star" => self.closure(&[i].into(), &f["content"], ends),
            "plus" => {
                let once = self.ends(&f["content"], i, ends);
                self.closure(&once, &f["content"], ends)
            }
            "repeat" => {
                let (min, max) = (f["min"].as_i64().unwrap(), f["max"].as_i64().unwrap());
                let mut at: Ends = [i].into();
                for _ in 0..min {
                    at = self.then(&at, &f["content"], ends);
                }
                if max < 0 {
                    return self.closure(&at, &f["content"], ends);
                }
                let mut out = at.clone();
                for _ in min..max {
                    at = self.then(&at, &f["content"], ends);
                    out.extend(at.iter().copied());
                }
                out
            }
            "tag" => self.tag(f, i),
            "triggered_tags" => self.triggered(f, i, ends),
            "tags_with_separator" => self.separated(f, i, ends),
            other => panic!("the oracle does not know `{other}`"),
        }
    }

    /// Ends of `f` after any of `at`.
    fn then(&mut self, at: &Ends, f: &Value, ends: &[String]) -> Ends {
        let mut out = Ends::new();
        for &p in at {
            out.extend(self.ends(f, p, ends));
        }
        out
    }

    /// `at`, then `f` any number of times.
    fn closure(&mut self, at: &Ends, f: &Value, ends: &[String]) -> Ends {
        let mut out = at.clone();
        let mut todo: Vec<usize> = at.iter().copied().collect();
        while let Some(p) = todo.pop() {
            for q in self.ends(f, p, ends) {
                if out.insert(q) {
                    todo.push(q);
                }
            }
        }
        out
    }

    fn literal(&self, s: &str, i: usize) -> Ends {
        if self.text[i..].starts_with(s.as_bytes()) {
            [i + s.len()].into()
        } else {
            Ends::new()
        }
    }

    fn literals(&self, list: &[String], i: usize) -> Ends {
        list.iter().flat_map(|s| self.literal(s, i)).collect()
    }

    /// UTF-8 text from `i` without any of `banned` inside, of at most `max` chars.
    fn free(&self, i: usize, banned: &[String], max: Option<usize>) -> Ends {
        let mut out = Ends::new();
        for j in i..=self.text.len() {
            let Ok(s) = std::str::from_utf8(&self.text[i..j]) else {
                continue;
            };
            if banned
                .iter()
                .any(|b| !b.is_empty() && s.contains(b.as_str()))
            {
                break;
            }
            if max.is_some_and(|m| s.chars().count() > m) {
                break;
            }
            out.insert(j);
        }
        out
    }

    fn tag(&mut self, t: &Value, i: usize) -> Ends {
        let end_list = strs(&t["end"]);
        let inner: Vec<String> = end_list.iter().filter(|e| !e.is_empty()).cloned().collect();
        let after_begin = self.literal(t["begin"].as_str().unwrap(), i);
        let after_content = self.then(&after_begin, &t["content"], &inner);
        let mut out = Ends::new();
        for p in after_content {
            out.extend(self.literals(&end_list, p));
        }
        out
    }

    fn any_tag(&mut self, tags: &Value, at: &Ends) -> Ends {
        let mut out = Ends::new();
        for &p in at {
            for t in tags.as_array().unwrap() {
                out.extend(self.tag(t, p));
            }
        }
        out
    }

    fn triggered(&mut self, f: &Value, i: usize, ends: &[String]) -> Ends {
        let mut banned = strs(&f["triggers"]);
        banned.extend(strs(&f["excludes"]));
        banned.extend(ends.iter().cloned());
        let text = |o: &mut Self, at: &Ends| -> Ends {
            at.iter().flat_map(|&p| o.free(p, &banned, None)).collect()
        };
        let first = f["at_least_one"] == true;
        let once = f["stop_after_first"] == true;
        let start: Ends = [i].into();
        match (first, once) {
            (true, true) => self.any_tag(&f["tags"], &start),
            (false, true) => {
                let before = text(self, &start);
                let mut out = before.clone();
                out.extend(self.any_tag(&f["tags"], &before));
                out
            }
            (first, false) => {
                let mut at = if first {
                    let t = self.any_tag(&f["tags"], &start);
                    text(self, &t)
                } else {
                    text(self, &start)
                };
                let mut todo: Vec<usize> = at.iter().copied().collect();
                while let Some(p) = todo.pop() {
                    let after = self.any_tag(&f["tags"], &[p].into());
                    for q in text(self, &after) {
                        if at.insert(q) {
                            todo.push(q);
                        }
                    }
                }
                at
            }
        }
    }

    fn separated(&mut self, f: &Value, i: usize, ends: &[String]) -> Ends {
        let sep = f["separator"].as_str().unwrap().to_string();
        let once = f["stop_after_first"] == true || ends.contains(&sep);
        let start: Ends = [i].into();
        let one = self.any_tag(&f["tags"], &start);
        let mut out = one.clone();
        if !once {
            let mut todo: Vec<usize> = one.iter().copied().collect();
            while let Some(p) = todo.pop() {
                let after_sep = self.literal(&sep, p);
                for q in self.any_tag(&f["tags"], &after_sep) {
                    if out.insert(q) {
                        todo.push(q);
                    }
                }
            }
        }
        if f["at_least_one"] != true {
            out.insert(i);
        }
        out
    }

    fn regex(&self, pattern: &str, i: usize) -> Ends {
        let re = regex::Regex::new(&format!("^(?:{pattern})$")).unwrap();
        (i..=self.text.len())
            .filter(|&j| std::str::from_utf8(&self.text[i..j]).is_ok_and(|s| re.is_match(s)))
            .collect()
    }

    /// Ends of a text the grammar piece `f` derives, starting at `i`.
    fn grammar(&mut self, f: &Value, i: usize) -> Ends {
        let text = self.text;
        let earley = self
            .grammars
            .entry(f.to_string())
            .or_insert_with(|| Earley::new(&grammar_rules(f)));
        (i..=text.len())
            .filter(|&j| earley.accepts(&text[i..j]))
            .collect()
    }

    /// Ends of a JSON text in the output form (compact, canonical) that `schema` admits.
    fn json(&mut self, schema: &Value, i: usize) -> Ends {
        let rest = &self.text[i..];
        let candidates: Vec<usize> = match rest.first() {
            None => Vec::new(),
            // Strings, objects and arrays end where the first parse stops.
            Some(b'"' | b'{' | b'[') => {
                let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
                match stream.next() {
                    Some(Ok(_)) => vec![stream.byte_offset()],
                    _ => Vec::new(),
                }
            }
            // A number's prefixes may be numbers too; literals are tried at every length.
            Some(_) => (1..=rest.len()).collect(),
        };
        let key = schema.to_string();
        let validator = self
            .validators
            .entry(key)
            .or_insert_with(|| jsonschema::validator_for(schema).unwrap());
        candidates
            .into_iter()
            .filter(|&len| {
                let Ok(s) = std::str::from_utf8(&rest[..len]) else {
                    return false;
                };
                let Ok(v) = serde_json::from_str::<Value>(s) else {
                    return false;
                };
                output_form(s)
                    && serde_json::from_str::<NoDuplicates>(s).is_ok()
                    && in_schema_order(&v, schema)
                    && validator.is_valid(&v)
            })
            .map(|len| i + len)
            .collect()
    }
}

/// The rules of a grammar piece as parsed (its `syntax`, XGrammar's EBNF by default).
pub fn grammar_rules(f: &Value) -> fstc_pda::gbnf::Rules {
    let text = f["grammar"].as_str().unwrap();
    match f["syntax"].as_str().unwrap_or("ebnf") {
        "gbnf" => fstc_pda::gbnf::parse(text).unwrap(),
        "ebnf" => fstc_pda::gbnf::parse_ebnf(text).unwrap(),
        other => panic!("the oracle reads no `{other}` grammar"),
    }
}

/// The members of every object follow the order of its schema's `properties`.
fn in_schema_order(v: &Value, schema: &Value) -> bool {
    match v {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return true;
            };
            let order: Vec<&String> = props.keys().collect();
            let positions: Vec<usize> = map
                .keys()
                .filter_map(|k| order.iter().position(|o| *o == k))
                .collect();
            positions.windows(2).all(|w| w[0] < w[1])
                && map
                    .iter()
                    .all(|(k, x)| props.get(k).map_or(true, |s| in_schema_order(x, s)))
        }
        Value::Array(items) => match schema.get("items") {
            Some(s) => items.iter().all(|x| in_schema_order(x, s)),
            None => true,
        },
        _ => true,
    }
}

/// The output form of the tests' schemas: no whitespace outside strings, strings spelled
/// as serde_json spells them, numbers as integers without leading zeros (`-0` included).
fn output_form(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let mut j = i + 1;
                while b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let literal = &s[i..=j];
                let decoded: String = serde_json::from_str(literal).unwrap();
                if serde_json::to_string(&decoded).unwrap() != literal {
                    return false;
                }
                i = j + 1;
            }
            b'-' | b'0'..=b'9' => {
                let j = i + b[i..]
                    .iter()
                    .take_while(|c| matches!(c, b'-' | b'0'..=b'9' | b'.' | b'e' | b'E' | b'+'))
                    .count();
                let digits = s[i..j].trim_start_matches('-');
                if !digits.bytes().all(|c| c.is_ascii_digit())
                    || (digits.len() > 1 && digits.starts_with('0'))
                {
                    return false;
                }
                i = j;
            }
            b' ' | b'\t' | b'\n' | b'\r' => return false,
            _ => i += 1,
        }
    }
    true
}

/// Deserializes only JSON whose objects have no repeated member name (serde_json's
/// `Value` keeps the last one silently; the output form never repeats a name).
struct NoDuplicates;

impl<'de> serde::Deserialize<'de> for NoDuplicates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicatesVisitor)
    }
}

struct NoDuplicatesVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicatesVisitor {
    type Value = NoDuplicates;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<NoDuplicates, A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key) {
                return Err(serde::de::Error::custom("repeated member name"));
            }
            map.next_value::<NoDuplicates>()?;
        }
        Ok(NoDuplicates)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<NoDuplicates, A::Error> {
        while seq.next_element::<NoDuplicates>()?.is_some() {}
        Ok(NoDuplicates)
    }

    fn visit_bool<E>(self, _: bool) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
    fn visit_i64<E>(self, _: i64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
    fn visit_u64<E>(self, _: u64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
    fn visit_f64<E>(self, _: f64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
    fn visit_str<E>(self, _: &str) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
    fn visit_unit<E>(self) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates)
    }
}
