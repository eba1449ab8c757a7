//! The regexes of issue 3 and hand-written texts that match them.
//!
//! The walks every engine follows are the tokenizations of these texts, so they decide
//! which states the masks are computed in. They are written to look like what a model
//! would produce: mostly ASCII, some accented and non-Latin letters, escapes in strings.

/// One benchmark regex.
pub struct Case {
    /// Short name for the tables.
    pub name: &'static str,
    /// The pattern (full-match semantics in every engine).
    pub pattern: &'static str,
    /// Texts that match the whole pattern.
    pub samples: &'static [&'static str],
}

/// The five regexes of the issue, in table order.
pub const CASES: &[Case] = &[
    Case {
        name: "identifier",
        pattern: r"[^\W\d]\w*",
        samples: &[
            "user_id",
            "parseHttpResponse",
            "MAX_BUFFER_SIZE",
            "_private_cache",
            "numéro_de_téléphone",
            "x2",
            "compute_mask_for_state",
            "Größe",
            "имя_пользователя",
            "tokenCount",
            "self",
            "レスポンス",
        ],
    },
    Case {
        name: "ipv4",
        pattern: r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
        samples: &[
            "192.168.1.1",
            "10.0.0.254",
            "172.16.254.3",
            "8.8.8.8",
            "255.255.255.0",
            "127.0.0.1",
            "203.0.113.77",
            "100.64.12.200",
        ],
    },
    Case {
        name: "date-time",
        pattern: r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
        samples: &[
            "2024-03-15T14:30:00Z",
            "1999-12-31T23:59:59.999+01:00",
            "2023-07-04T08:05:09-07:00",
            "2026-11-22T02:53:13.123456Z",
            "2021-01-01T00:00:00+00:00",
        ],
    },
    Case {
        name: "bullets",
        pattern: r"Summary:(\n\* [^\n]+){3,5}",
        samples: &[
            "Summary:\n* The build now uses a separate workspace for the peers.\n\
             * Compile time dropped by half on the large vocabularies.\n\
             * Masks are filled in time proportional to the allowed tokens.",
            "Summary:\n* Revenue grew 12% year over year, to $4.2M.\n\
             * Churn fell below 3% for the first time.\n\
             * Hiring is paused until Q3.\n\
             * The café opening in Zürich moved to 2025.",
            "Summary:\n* Patient reports mild headaches since Monday.\n\
             * No fever; blood pressure 120/80.\n\
             * Follow-up in two weeks.\n\
             * Prescribed ibuprofen 400 mg as needed.\n\
             * Advised rest and hydration.",
        ],
    },
    Case {
        name: "quoted",
        pattern: r#""([^"\\]|\\.)*""#,
        samples: &[
            r#""hello world""#,
            r#""C:\\Users\\admin\\Documents""#,
            r#""She said \"hi\" and left.""#,
            r#""line one\nline two\ttabbed""#,
            r#""naïve café ☕ — 東京""#,
            r#""""#,
            r#""{\"key\": [1, 2, 3]}""#,
        ],
    },
];
