//! llguidance's `%json {...}` in Lark grammars: the embedded schema's texts agree with the
//! jsonschema crate (every candidate accepted exactly when valid, candidates written in
//! fstc-json's output form: properties in schema order), and whole grammars around it agree
//! with the Earley recognizer; what cannot be exact is refused by name.

use crate::earley::Earley;
use fstc_pda::{Pda, Syntax};
use serde_json::Value;

const CALL: &str = r#"{
  "type": "object",
  "properties": {
    "name": { "const": "get_weather" },
    "parameters": {
      "type": "object",
      "properties": { "city": { "type": "string", "maxLength": 8 }, "days": { "type": "integer", "minimum": 1, "maximum": 7 } },
      "required": ["city"],
      "additionalProperties": false
    }
  },
  "required": ["name", "parameters"],
  "additionalProperties": false
}"#;

const LIST: &str =
    r#"{"type": "array", "items": {"enum": [1, "two", null, [3]]}, "minItems": 1, "maxItems": 3}"#;

/// Valid-looking texts and their mutations: each schema's verdicts come from the oracle.
fn candidates() -> Vec<String> {
    let base = [
        r#"{"name":"get_weather","parameters":{"city":"Paris"}}"#,
        r#"{"name":"get_weather","parameters":{"city":"Paris","days":3}}"#,
        r#"{"name": "get_weather", "parameters": {"city": "Oslo", "days": 7}}"#,
        r#"{"name":"get_weather","parameters":{"city":"été"}}"#,
        r#"{"name":"get_weather","parameters":{"city":"Rio","days":0}}"#,
        r#"{"name":"get_weather","parameters":{"city":"Ouagadougou"}}"#,
        r#"{"name":"get_weather","parameters":{"days":2}}"#,
        r#"{"name":"get_time","parameters":{"city":"Paris"}}"#,
        r#"{"name":"get_weather","parameters":{"city":"Paris"},"x":1}"#,
        r#"{"name":"get_weather"}"#,
        r#"[1]"#,
        r#"[1,"two",null]"#,
        r#"[[3], null]"#,
        r#"[1,1,1,1]"#,
        r#"[]"#,
        r#"["three"]"#,
        r#"[3]"#,
        r#"null"#,
    ];
    let mut out = Vec::new();
    for b in base {
        out.push(b.to_string());
        out.push(b[..b.len() - 1].to_string());
        out.push(format!("{b} "));
        out.push(b.replacen(':', ": ", 1));
        out.push(b.replace("\"Paris\"", "\"Par\\\"is\""));
        out.push(b.replace("3", "-3"));
    }
    out
}

fn embedded_agrees(schema: &str) {
    let grammar = format!("start: value\nvalue: %json {schema}\n");
    let pda = Pda::from_text(&grammar, Syntax::Lark).unwrap_or_else(|e| panic!("{e}"));
    let oracle = jsonschema::validator_for(&serde_json::from_str(schema).unwrap()).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for text in candidates() {
        let verdict = serde_json::from_str::<Value>(&text).is_ok_and(|v| oracle.is_valid(&v))
            && !text.ends_with(' ');
        assert_eq!(pda.accepts(text.as_bytes()), verdict, "{schema} on {text}");
        if verdict {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    assert!(
        valid >= 3 && invalid >= 10,
        "{valid} valid, {invalid} invalid"
    );
}

#[test]
fn the_embedded_schema_agrees_with_the_jsonschema_crate() {
    embedded_agrees(CALL);
    embedded_agrees(LIST);
}

#[test]
fn grammars_around_json_agree_with_the_recognizer() {
    let grammar = format!(
        "start: \"Answer:\" (call | \"none\") (\";\" call)*\ncall: %json {CALL} | list\nlist: %json {LIST}\n%ignore \" \"\n"
    );
    let pda = Pda::from_text(&grammar, Syntax::Lark).unwrap_or_else(|e| panic!("{e}"));
    let earley = Earley::new(&fstc_pda::lark::parse(&grammar).unwrap());
    let pieces = [
        "",
        " ",
        "none",
        ";",
        "Answer:",
        r#"{"name":"get_weather","parameters":{"city":"Paris"}}"#,
        r#"{"name":"get_weather","parameters":{"city": "Oslo","days":2}}"#,
        r#"{"name":"get_weather"}"#,
        "[1,null]",
        "[]",
    ];
    let (mut members, mut total) = (0, 0);
    for a in &pieces {
        for b in &pieces {
            for c in &pieces {
                for d in ["", ";", "[1]", " ;none"] {
                    let text = format!("Answer:{a}{b}{c}{d}");
                    let expected = earley.accepts(text.as_bytes());
                    assert_eq!(pda.accepts(text.as_bytes()), expected, "{text}");
                    members += usize::from(expected);
                    total += 1;
                }
            }
        }
    }
    assert!(
        members >= 50 && total - members >= 1000,
        "{members} of {total}"
    );
}
