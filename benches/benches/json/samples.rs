//! The JSON benchmark's schemas (`benches/inputs/json/`, the peers' own inputs) and, for
//! each, hand-written valid instances in compact form with properties in schema order:
//! the texts the walks follow.

/// One schema and the instances its walk takes in turn.
pub struct JsonCase {
    pub name: &'static str,
    /// File name under `benches/inputs/json/`.
    pub file: &'static str,
    pub samples: &'static [&'static str],
}

pub const JSON_CASES: &[JsonCase] = &[
    JsonCase {
        name: "json-small",
        file: "json-small.schema.json",
        samples: &[
            r#"{"name":"Ada Lovelace","age":36,"is_active":true,"role":"admin"}"#,
            r#"{"name":"Björn Þórsson","age":7,"is_active":false,"role":"viewer"}"#,
            r#"{"name":"李小龍 \"Bruce\"","age":32,"is_active":true,"role":"editor"}"#,
        ],
    },
    JsonCase {
        name: "json-medium",
        file: "json-medium.schema.json",
        samples: &[
            concat!(
                r#"{"id":1042,"title":"Notes on automata and tokenizers","tags":["automata","llm","rust"],"#,
                r#""author":{"name":"Grace Hopper","email":"grace@example.org","karma":12.5},"published":true,"#,
                r#""rating":4.75,"comments":[{"user":"ken","text":"Nice write-up!","likes":3},"#,
                r#"{"user":"dmr","text":"What about \"lazy\" DFAs?"}]}"#
            ),
            concat!(
                r#"{"id":7,"title":"Draft","author":{"name":"Anonymous","email":null},"rating":null,"#,
                r#""comments":[]}"#
            ),
        ],
    },
    JsonCase {
        name: "json-large",
        file: "json-large.schema.json",
        samples: &[
            concat!(
                r#"{"id":2210450,"number":1347,"title":"Walker panics on empty vocabulary","state":"closed","#,
                r#""state_reason":"completed","locked":false,"body":"Steps:\n1. load an empty tokenizer\n2. compile `a+`","#,
                r#""user":{"login":"octocat","id":583231,"type":"User","site_admin":false},"#,
                r#""assignees":[{"login":"hubot","id":1,"type":"Bot","site_admin":false}],"#,
                r#""labels":[{"id":208045946,"name":"bug","color":"d73a4a","description":"Something isn't working","default":true},"#,
                r#"{"id":3,"name":"good first issue","color":"7057FF","description":null,"default":false}],"#,
                r#""milestone":{"number":4,"title":"v0.3","state":"open","due_on":"2025-01-31T08:00:00Z"},"#,
                r#""comments":5,"created_at":"2024-11-02T17:45:03Z","updated_at":"2024-11-05T09:12:44Z","#,
                r#""closed_at":"2024-11-05T09:12:44Z","author_association":"CONTRIBUTOR","#,
                r#""html_url":"https://github.com/example/fstc/issues/1347","#,
                r#""reactions":{"total_count":3,"+1":2,"-1":0,"heart":1,"rocket":0},"draft":false}"#
            ),
            concat!(
                r#"{"id":99,"number":2,"title":"Add JSON Schema support","state":"open","state_reason":null,"#,
                r#""locked":true,"body":null,"user":{"login":"dependabot[bot]","id":49699333,"type":"Bot","site_admin":false},"#,
                r#""assignees":[],"labels":[],"milestone":null,"comments":0,"created_at":"2023-06-30T23:59:59Z","#,
                r#""updated_at":"2023-07-01T00:00:00Z","closed_at":null,"author_association":"NONE","#,
                r#""html_url":"https://github.com/example/fstc/pull/2","#,
                r#""reactions":{"total_count":0,"+1":0,"-1":0,"heart":0,"rocket":0},"#,
                r#""pull_request":{"url":"https://api.github.com/repos/example/fstc/pulls/2","merged_at":null}}"#
            ),
        ],
    },
];

/// Size cases (issue 11 point 5), run with `--sizes`: a 2,000-character `maxLength`.
pub const SIZE_CASES: &[JsonCase] = &[JsonCase {
    name: "maxlength-2000",
    file: "maxlength-2000.schema.json",
    samples: &[
        r#"{"text":"Short."}"#,
        concat!(
            r#"{"text":"A long field: the automaton counts characters, not tokens, so a token of "#,
            r#"twelve characters moves twelve states along. Ünïcödé and \"escapes\" count "#,
            r#"as one character each, as JSON Schema's maxLength says (code points).\n"#,
            r#"Then more text follows, to walk a few hundred characters into the string."}"#
        ),
    ],
}];
