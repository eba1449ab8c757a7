//! The hash maps of the compiler and the file writer: keys are our own integers and
//! slices of them, never attacker-chosen, so a multiply-rotate hash replaces SipHash
//! (which cost ~8% of a compile hashing class columns). Public for the front ends
//! (regex, grammars), whose keys are of the same kind.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Multiply-rotate hashing, a 64-bit step per integer written.
#[derive(Clone, Copy, Default)]
pub struct FastHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(K).rotate_left(29);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // hashbrown takes its buckets from the low bits and a tag from the top ones.
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_that_differ_anywhere_hash_apart() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..64u32 {
            for v in 0..64u32 {
                let mut column: Vec<(u32, u32)> = (0..64).map(|s| (s, 7)).collect();
                column[i as usize].1 = v;
                let mut h = FastHasher::default();
                std::hash::Hash::hash(column.as_slice(), &mut h);
                seen.insert(h.finish());
            }
        }
        // 64 * 63 distinct edits plus the unedited column (v = 7 at every i).
        assert_eq!(seen.len(), 64 * 63 + 1);
    }
}
