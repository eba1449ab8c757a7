//! `vocab::FreeText`, the automaton of free text holding none of some strings, against a
//! definition written here from the strings alone (`str::from_utf8` for UTF-8, `ends_with`
//! for the strings) on random texts made of the strings' pieces, characters of every
//! length and bytes UTF-8 forbids (surrogates, overlong forms, past U+10FFFF).

use fstc_core::sample::SplitMix64;
use fstc_core::vocab::FreeText;

fn run(text: &FreeText, bytes: &[u8]) -> Option<u32> {
    bytes
        .iter()
        .try_fold(FreeText::CLEAN, |a, &b| text.next(a, b))
}

/// Every prefix is the start of UTF-8 and none ends with an excluded string.
fn readable(bytes: &[u8], strings: &[&str]) -> bool {
    (1..=bytes.len()).all(|i| {
        let p = &bytes[..i];
        let utf8 = match std::str::from_utf8(p) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none(),
        };
        utf8 && !strings.iter().any(|s| p.ends_with(s.as_bytes()))
    })
}

/// Readable, whole UTF-8, and no excluded string begun at its end.
fn clean(bytes: &[u8], strings: &[&str]) -> bool {
    readable(bytes, strings)
        && std::str::from_utf8(bytes).is_ok()
        && !strings
            .iter()
            .any(|s| (1..s.len()).any(|k| bytes.ends_with(&s.as_bytes()[..k])))
}

#[test]
fn free_text_reads_what_its_definition_says() {
    let sets: [&[&str]; 6] = [
        &["<tool_call>"],
        &["<tool_call>", "</think>", "<|python_tag|>"],
        &["aa", "ab", "b"],
        &["é中", "\u{1F600}x", "ü"],
        &["abab", "bab"],
        &[],
    ];
    let odd: [&[u8]; 9] = [
        b"\xED\xA0\x80",
        b"\xC0\x80",
        b"\xF4\x90\x80\x80",
        b"\x80",
        b"\xE0\x9F\xBF",
        b"\xF0\x8F\xBF\xBF",
        b"\xFF",
        b"\xF4\x8F\xBF\xBF",
        b"\xED\x9F\xBF",
    ];
    let chars = ["a", "b", "<", "x", " ", "é", "中", "\u{1F600}", "ü", "\n"];
    let mut rng = SplitMix64::new(5);
    for strings in sets {
        let text = FreeText::new(strings).unwrap();
        let (mut kept, mut read) = (0, 0);
        for _ in 0..4000 {
            let mut bytes = Vec::new();
            for _ in 0..rng.index(8) {
                match rng.index(4) {
                    0 if !strings.is_empty() => {
                        let s = strings[rng.index(strings.len())].as_bytes();
                        let (i, j) = (rng.index(s.len()), rng.index(s.len() + 1));
                        bytes.extend_from_slice(&s[i.min(j)..i.max(j)]);
                    }
                    1 => bytes.extend_from_slice(odd[rng.index(odd.len())]),
                    2 => {
                        let c = chars[rng.index(chars.len())].as_bytes();
                        bytes.extend_from_slice(&c[..rng.index(c.len()) + 1]);
                    }
                    _ => bytes.extend_from_slice(chars[rng.index(chars.len())].as_bytes()),
                }
            }
            let got = run(&text, &bytes);
            assert_eq!(
                got.is_some(),
                readable(&bytes, strings),
                "{strings:?}: {bytes:x?}"
            );
            assert_eq!(
                got == Some(FreeText::CLEAN),
                clean(&bytes, strings),
                "{strings:?}: {bytes:x?}"
            );
            read += usize::from(got.is_some());
            kept += usize::from(got == Some(FreeText::CLEAN));
        }
        assert!(
            kept > 300 && read > kept + 50,
            "{strings:?}: {kept} kept, {read} read"
        );
    }
}

#[test]
fn empty_or_too_long_strings_make_no_free_text() {
    assert!(FreeText::new(&["a", ""]).is_none());
    let long = "x".repeat(fstc_core::vocab::MAX_FREE_TEXT_BYTES + 1);
    assert!(FreeText::new(&[long]).is_none());
    assert!(FreeText::new::<&str>(&[]).is_some());
}
