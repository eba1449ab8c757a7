//! The token class sections: the token index, the token classes, the class word offsets
//! and the class words. The writer's encoding and the reader's checks, side by side.

use super::check::{check_csr, expect_len};
use super::error::{err, FormatError, FormatErrorKind};
use super::SECTION_TOKEN_CLASSES;
use crate::parts::{renumber, MASK_WORD_TOKENS, NO_CLASS};

/// Whether labels and targets fit the packed 16-bit edge layout (labels below `0xffff`,
/// which marks a token without a class).
pub(crate) fn fits_narrow(num_labels: u64, num_states: u64) -> bool {
    num_labels < 1 << 16 && num_states <= 1 << 16
}

/// The token classes section (and the token index, `None` when not used) for the class of
/// every token id `final_of_class[class_of_token[t]]`: a class per token id, or an index
/// of the tokens with a class and a class per entry, whichever is smaller; 16 bits per
/// entry when `narrow` (0xffff for none and for the pad of an odd count).
pub(crate) fn encode_token_classes(
    class_of_token: &[u32],
    uniform: &[bool],
    final_of_class: &[u32],
    class_sizes: &[u32],
    narrow: bool,
) -> (Option<Vec<u32>>, Vec<u32>) {
    let class_of = |c: u32| renumber(final_of_class, c);
    let with_class = class_sizes.iter().map(|&n| n as usize).sum::<usize>();
    let entry_words = |n: usize| if narrow { n.div_ceil(2) } else { n };
    let words = class_of_token.chunks(MASK_WORD_TOKENS).zip(uniform);
    if with_class + entry_words(with_class) < entry_words(class_of_token.len()) {
        let (mut index, mut entries) = (Vec::with_capacity(with_class), Vec::new());
        for (w, (chunk, &whole)) in words.enumerate() {
            if whole && class_of(chunk[0]) == NO_CLASS {
                continue;
            }
            for (i, &c) in chunk.iter().enumerate() {
                let c = class_of(c);
                if c != NO_CLASS {
                    index.push((w * MASK_WORD_TOKENS + i) as u32);
                    entries.push(c);
                }
            }
        }
        let entries = if narrow {
            entries
                .chunks(2)
                .map(|pair| pack_classes(pair[0], pair.get(1).copied()))
                .collect()
        } else {
            entries
        };
        return (Some(index), entries);
    }
    // A class per token id; a uniform word's 32 entries are one value repeated.
    let mut out = Vec::with_capacity(entry_words(class_of_token.len()));
    for (chunk, &whole) in words {
        let full = chunk.len() == MASK_WORD_TOKENS;
        match (narrow, whole && full) {
            (true, true) => {
                let c = class_of(chunk[0]) & 0xffff;
                out.resize(out.len() + MASK_WORD_TOKENS / 2, c | c << 16);
            }
            (true, false) => out.extend(
                chunk
                    .chunks(2)
                    .map(|pair| pack_classes(class_of(pair[0]), pair.get(1).map(|&c| class_of(c)))),
            ),
            (false, true) => out.resize(out.len() + MASK_WORD_TOKENS, class_of(chunk[0])),
            (false, false) => out.extend(chunk.iter().map(|&c| class_of(c))),
        }
    }
    (None, out)
}

/// Two 16-bit class entries in one word, the first in the low half; a missing second one
/// (the pad of an odd count) and `NO_CLASS` are 0xffff.
fn pack_classes(low: u32, high: Option<u32>) -> u32 {
    (low & 0xffff) | high.map_or(0xffff, |c| c & 0xffff) << 16
}

/// Where the class sections are, from the section table.
pub(crate) struct ClassSections {
    pub(crate) token_index: Option<(usize, usize)>,
    pub(crate) token_classes: (usize, usize),
    pub(crate) word_offsets: (usize, usize),
    pub(crate) word_pairs: (usize, usize),
    /// Whether class entries are 16-bit.
    pub(crate) narrow: bool,
}

/// The token classes as read: the entry of each token index entry (or token id).
struct ClassTable<'w> {
    index: Option<&'w [u32]>,
    entries: &'w [u32],
    narrow: bool,
}

impl ClassTable<'_> {
    /// The value meaning "no class".
    fn none(&self) -> u32 {
        if self.narrow {
            0xffff
        } else {
            u32::MAX
        }
    }

    fn class_at(&self, i: usize) -> u32 {
        if self.narrow {
            (self.entries[i / 2] >> (16 * (i % 2))) & 0xffff
        } else {
            self.entries[i]
        }
    }

    /// The class entry of token `t`, `none()` if it has none.
    fn class_of(&self, t: usize) -> u32 {
        match self.index {
            Some(index) => index
                .binary_search(&(t as u32))
                .map_or(self.none(), |i| self.class_at(i)),
            None => self.class_at(t),
        }
    }

    fn token_of(&self, i: usize) -> usize {
        self.index.map_or(i, |index| index[i] as usize)
    }
}

fn bad_class(message: String) -> FormatError {
    err(FormatErrorKind::TokenClasses, message)
}

/// Reads the class sections: the number of classes and (when `all`) the tokens per class,
/// checking that every token's class exists, no EOS id has one, and each class's mask
/// words hold exactly its tokens. `num_labels_states` is `(num_terminals, num_states)`,
/// for the label range.
pub(crate) fn read_classes(
    words: &[u32],
    s: &ClassSections,
    (vocab_size, eos_ids): (u32, &[u32]),
    (num_terminals, num_states): (u32, u32),
    all: bool,
) -> Result<(u32, Vec<u64>), FormatError> {
    if s.word_offsets.1 == 0 {
        return Err(bad_class(
            "section 'class word offsets' is empty; it has one word more than there are classes"
                .into(),
        ));
    }
    let num_classes = (s.word_offsets.1 - 1) as u32;
    let labels = u64::from(num_classes) + u64::from(num_terminals);
    if labels > u64::from(u32::MAX) || (s.narrow && !fits_narrow(labels, u64::from(num_states))) {
        return Err(bad_class(format!(
            "{num_classes} classes and {num_terminals} terminals with {num_states} states do \
             not fit the {} edge layout",
            if s.narrow { "packed 16-bit" } else { "32-bit" }
        )));
    }
    let word_csr = &words[s.word_offsets.0..s.word_offsets.0 + s.word_offsets.1];
    if s.word_pairs.1 % 2 != 0 {
        return Err(bad_class(format!(
            "section 'class words' has {} words, not a whole number of (word, bits) pairs",
            s.word_pairs.1
        )));
    }
    check_csr(
        word_csr,
        s.word_offsets.0,
        ("class word offsets", "class"),
        (s.word_pairs.1 / 2, "class word pairs"),
        true,
    )?;
    let table = class_table(words, s, vocab_size)?;
    let mut class_sizes = vec![0u64; num_classes as usize];
    if all {
        class_sizes = count_classes(&table, num_classes, vocab_size)?;
        if let Some(&e) = eos_ids
            .iter()
            .find(|&&e| table.class_of(e as usize) != table.none())
        {
            return Err(bad_class(format!(
                "section 'token classes': EOS id {e} is given class {}; EOS is allowed by \
                 accepting states, never by edges",
                table.class_of(e as usize)
            )));
        }
        let pairs = &words[s.word_pairs.0..s.word_pairs.0 + s.word_pairs.1];
        check_class_words(&table, (word_csr, pairs), &class_sizes, vocab_size)?;
    }
    Ok((num_classes, class_sizes))
}

/// The token classes section, its length checked against the token index or vocabulary.
fn class_table<'w>(
    words: &'w [u32],
    s: &ClassSections,
    vocab_size: u32,
) -> Result<ClassTable<'w>, FormatError> {
    let index = s
        .token_index
        .map(|(offset, len)| &words[offset..offset + len]);
    let entries = index.map_or(vocab_size as usize, <[u32]>::len);
    let counted = match index {
        Some(_) => format!("the {entries} token index entries"),
        None => format!("the {vocab_size} token ids"),
    };
    expect_len(
        SECTION_TOKEN_CLASSES,
        s.token_classes,
        if s.narrow {
            entries.div_ceil(2) as u64
        } else {
            entries as u64
        },
        format!(
            "{counted} ({})",
            if s.narrow {
                "16 bits each"
            } else {
                "a word each"
            }
        ),
    )?;
    Ok(ClassTable {
        index,
        entries: &words[s.token_classes.0..s.token_classes.0 + s.token_classes.1],
        narrow: s.narrow,
    })
}

/// Checks the token index and the class entries and returns the tokens per class.
fn count_classes(
    table: &ClassTable<'_>,
    num_classes: u32,
    vocab_size: u32,
) -> Result<Vec<u64>, FormatError> {
    let index = table.index.unwrap_or(&[]);
    let entries = table.index.map_or(vocab_size as usize, <[u32]>::len);
    if table.narrow && entries % 2 == 1 && table.entries.last().is_some_and(|w| w >> 16 != 0xffff) {
        return Err(bad_class(
            "section 'token classes': the unused upper half of the last word is not 0xffff".into(),
        ));
    }
    if let Some(i) = (1..index.len()).find(|&i| index[i - 1] >= index[i]) {
        return Err(bad_class(format!(
            "section 'token index' entry {i}: tokens are not strictly increasing ({} then \
             {})",
            index[i - 1],
            index[i]
        )));
    }
    if let Some(&t) = index.last().filter(|&&t| t >= vocab_size) {
        return Err(bad_class(format!(
            "section 'token index': token {t} is not below vocab_size {vocab_size}"
        )));
    }
    let mut class_sizes = vec![0u64; num_classes as usize];
    for i in 0..entries {
        let c = table.class_at(i);
        if c == table.none() && table.index.is_some() {
            return Err(bad_class(format!(
                "section 'token classes': token {} is in the token index but given no \
                 class",
                table.token_of(i)
            )));
        }
        if c == table.none() {
            continue;
        }
        if c >= num_classes {
            return Err(bad_class(format!(
                "section 'token classes': token {} is given class {c}, but there are \
                 {num_classes} classes",
                table.token_of(i)
            )));
        }
        class_sizes[c as usize] += 1;
    }
    Ok(class_sizes)
}

/// Checks that each class's mask words hold exactly the tokens the token classes give it.
fn check_class_words(
    table: &ClassTable<'_>,
    (word_csr, pairs): (&[u32], &[u32]),
    class_sizes: &[u64],
    vocab_size: u32,
) -> Result<(), FormatError> {
    let vocab = vocab_size as usize;
    let mask_words = vocab.div_ceil(32);
    for (c, &size) in class_sizes.iter().enumerate() {
        let list = &pairs[2 * word_csr[c] as usize..2 * word_csr[c + 1] as usize];
        let mut set = 0u64;
        let mut previous: Option<u32> = None;
        for pair in list.chunks_exact(2) {
            let (w, bits) = (pair[0], pair[1]);
            if w as usize >= mask_words || previous.is_some_and(|p| p >= w) || bits == 0 {
                return Err(bad_class(format!(
                    "section 'class words' (class {c}): pair ({w}, {bits:#x}) breaks the \
                     rule that word indices increase strictly, stay below {mask_words} \
                     and have some bit set"
                )));
            }
            previous = Some(w);
            let mut rest = bits;
            while rest != 0 {
                let t = w as usize * 32 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if t >= vocab || table.class_of(t) != c as u32 {
                    return Err(bad_class(format!(
                        "section 'class words' (class {c}): token {t} is set, but {}",
                        why_not_in_class(table, t, vocab)
                    )));
                }
            }
            set += u64::from(bits.count_ones());
        }
        if set != size {
            return Err(bad_class(format!(
                "section 'class words' (class {c}): {set} tokens are set, but the token \
                 classes give {size} tokens this class"
            )));
        }
    }
    Ok(())
}

/// Why token `t`, set in a class's words, is not in that class.
fn why_not_in_class(table: &ClassTable<'_>, t: usize, vocab: usize) -> String {
    if t >= vocab {
        "it is past vocab_size".to_string()
    } else if table.class_of(t) == table.none() {
        "the token classes give it none".to_string()
    } else {
        format!("the token classes give it class {}", table.class_of(t))
    }
}
