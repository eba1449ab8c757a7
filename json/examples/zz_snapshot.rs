// scratch (not committed): dump canonical regexes of the corpus and some format schemas
use fstc_json::{JsonSchemaCompiler, Whitespace};
fn main() {
    let out = std::env::args().nth(1).unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemas");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut schemas: Vec<(String, serde_json::Value)> = paths
        .iter()
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                v["schema"].clone(),
            )
        })
        .collect();
    for f in [
        "date",
        "time",
        "date-time",
        "duration",
        "uuid",
        "ipv4",
        "ipv6",
        "hostname",
        "email",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "json-pointer",
        "relative-json-pointer",
        "uri-template",
    ] {
        schemas.push((f.into(), serde_json::json!({"type":"string","format":f})));
    }
    schemas.push(("pat".into(), serde_json::json!({"type":"object","patternProperties":{"^a\"\\\\.$":{"type":"string","pattern":"x\\n\"é"}},"propertyNames":{"pattern":"^[a-z\"]+$"}})));
    schemas.push(("names".into(), serde_json::json!({"type":"object","properties":{"a\"b":{"enum":["x\u{1}y", {"k\"":"v\n"}]},"é":{"const":"\\"}},"additionalProperties":false})));
    schemas.push(("any".into(), serde_json::json!(true)));
    let mut text = String::new();
    for ws in [
        Whitespace::Compact,
        Whitespace::Flexible { max: 8 },
        Whitespace::Pretty { indent: 2 },
    ] {
        for (name, s) in &schemas {
            let r = JsonSchemaCompiler::new()
                .whitespace(ws)
                .lenient(true)
                .value_to_regex(s);
            match r {
                Ok(r) => {
                    text.push_str(&format!("== {name} {ws:?}\n{}\n", r.regex));
                    for (i, a) in r.automata.iter().enumerate() {
                        {
                            use std::hash::{Hash, Hasher};
                            let mut h = std::collections::hash_map::DefaultHasher::new();
                            format!("{:?}", a).hash(&mut h);
                            text.push_str(&format!(
                                "-- automaton {i}: {} states {:?} {:x}\n",
                                a.num_states(),
                                a.shortest_match(),
                                h.finish()
                            ));
                        }
                    }
                }
                Err(e) => text.push_str(&format!("== {name} {ws:?} ERR {e}\n")),
            }
        }
    }
    std::fs::write(out, text).unwrap();
}
