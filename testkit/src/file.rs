//! For the tests that edit automaton files word by word: the checksum, forged
//! after an edit so that validation reaches the damage, and section lookup; and the
//! damage every file kind is checked against (truncations, bit flips).

use fstc_core::format::{FormatError, FormatErrorKind};

/// The format's checksum, written here independently: FNV-1a (64-bit) in 8 lanes, lane `j`
/// over words `j, j + 8, ...`, then FNV-1a over the 8 lane values.
pub fn fnv_words(words: &[u32]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut lanes = vec![OFFSET; 8];
    for (i, &w) in words.iter().enumerate() {
        lanes[i % 8] = (lanes[i % 8] ^ u64::from(w)).wrapping_mul(PRIME);
    }
    let mut h = OFFSET;
    for lane in lanes {
        h = (h ^ lane).wrapping_mul(PRIME);
    }
    h
}

/// Rewrites the trailing checksum to match the (edited) words before it.
pub fn forge_checksum(words: &mut [u32]) {
    let n = words.len() - 2;
    let h = fnv_words(&words[..n]);
    words[n] = h as u32;
    words[n + 1] = (h >> 32) as u32;
}

/// `(offset, length)` in words of section `id`, from the section table; panics if absent.
pub fn section(words: &[u32], id: u32) -> (usize, usize) {
    let n = words[15] as usize;
    (0..n)
        .map(|k| 16 + 3 * k)
        .find(|&at| words[at] == id)
        .map(|at| (words[at + 1] as usize, words[at + 2] as usize))
        .unwrap()
}

/// Every copy of `bytes` with exactly one bit flipped, with the flipped bit's index: the
/// corruption tests of every file kind walk these.
pub fn bit_flips(bytes: &[u8]) -> impl Iterator<Item = (usize, Vec<u8>)> + '_ {
    (0..bytes.len() * 8).map(move |bit| {
        let mut damaged = bytes.to_vec();
        damaged[bit / 8] ^= 1 << (bit % 8);
        (bit, damaged)
    })
}

/// Checks every truncation of the file `bytes` (each shorter length): `copied` (a kind's
/// `from_bytes_copied`) refuses it, and so, at whole words, does `borrowed` (its
/// `from_bytes`, given aligned bytes), with a [`FormatErrorKind::Length`] error once the
/// header's first two words are there. The corruption tests of every file kind run it.
pub fn assert_truncations_refused(
    bytes: &[u8],
    copied: impl Fn(&[u8]) -> Result<(), FormatError>,
    borrowed: impl Fn(&[u8]) -> Result<(), FormatError>,
) {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for len in 0..bytes.len() {
        assert!(copied(&bytes[..len]).is_err(), "length {len}");
        if len % 4 == 0 {
            let e = borrowed(bytemuck::cast_slice(&words[..len / 4]))
                .expect_err(&format!("length {len} (aligned)"));
            if len >= 8 {
                assert_eq!(e.kind(), FormatErrorKind::Length, "length {len}: {e}");
            }
        }
    }
}

/// One round of a damage test behind a forged checksum: forges the checksum of `words`
/// and loads them with `load`, which must either succeed (the result is then walked with
/// `exercise`, which must not panic) or fail with a message and any kind but `Checksum`
/// (the damage, not the checksum, is what must be found). Returns whether it loaded.
pub fn load_forged<T>(
    mut words: Vec<u32>,
    round: usize,
    load: impl FnOnce(Vec<u32>) -> Result<T, FormatError>,
    exercise: impl FnOnce(&T),
) -> bool {
    forge_checksum(&mut words);
    match load(words) {
        Ok(loaded) => {
            exercise(&loaded);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty(), "round {round}");
            assert_ne!(e.kind(), FormatErrorKind::Checksum, "round {round}: {e}");
            false
        }
    }
}
