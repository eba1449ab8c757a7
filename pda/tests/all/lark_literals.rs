//! Lark string literals, ranges and regex terminals read as Python Lark reads them:
//! `testdata/lark/literals.json` (written by `testdata/make_lark_literals.py` with the real
//! `lark` package) holds generated one-terminal grammars, whether Lark refuses each and,
//! for those it reads, sample texts with whether Lark's terminal matches them in full.

use fstc_pda::{Pda, Syntax};
use serde_json::Value;

/// Where fstc refuses by name what Lark reads: a lone surrogate (Python keeps it; no
/// UTF-8 text holds it), the two ranges Lark turns into other classes, and the regex
/// constructs fstc's regex terminals refuse (assertions such as `\b`).
fn refused_by_name(message: &str) -> bool {
    [
        "surrogate",
        "write it as a /regex/",
        "not supported",
        "assertion",
    ]
    .iter()
    .any(|m| message.contains(m))
}

#[test]
fn literals_read_as_python_lark_reads_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/lark/literals.json"
    );
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = data["cases"].as_array().unwrap();
    let (mut agreed, mut refused, mut samples) = (0, 0, 0);
    for case in cases {
        let grammar = case["grammar"].as_str().unwrap();
        let ours = Pda::from_text(grammar, Syntax::Lark);
        if case["zero_width"] == true {
            // Lark refuses terminals that match the empty text; fstc reads them.
            match ours {
                Ok(pda) => assert!(pda.accepts(b""), "{grammar:?} on the empty text"),
                Err(e) => assert!(refused_by_name(&e.to_string()), "{grammar:?}: {e}"),
            }
            continue;
        }
        let Some(lark_samples) = case["samples"].as_array() else {
            assert!(
                ours.is_err(),
                "Lark refuses {grammar:?} ({}), fstc reads it",
                case["error"]
            );
            continue;
        };
        let pda = match ours {
            Ok(pda) => pda,
            Err(e) if refused_by_name(&e.to_string()) => {
                refused += 1;
                continue;
            }
            Err(e) => panic!("Lark reads {grammar:?}, fstc refuses it: {e}"),
        };
        for s in lark_samples {
            let (text, lark) = (s[0].as_str().unwrap(), s[1].as_bool().unwrap());
            assert_eq!(
                pda.accepts(text.as_bytes()),
                lark,
                "{grammar:?} on {text:?}"
            );
            samples += 1;
        }
        agreed += 1;
    }
    assert!(
        agreed >= cases.len() / 2,
        "{agreed} of {} cases compared",
        cases.len()
    );
    assert!(refused <= cases.len() / 20, "{refused} refused by name");
    assert!(samples >= 4 * agreed);
}
