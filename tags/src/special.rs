//! Tokens named by a structural tag (`{"type": "token", "token": ID or NAME}`: a format, a
//! tag's `begin` or `end`, `token_triggered_tags`' `trigger_tokens`), matched by that one
//! token only, as XGrammar's token formats are.
//!
//! Every other part of a structure admits only UTF-8 text, in which the byte 0xFE never
//! occurs. A named token is read as its *marker*: 0xFE and four bytes from 0x80..=0xBF
//! holding its id. The vocabulary is composed with each named token's text replaced by
//! its marker and the tokens whose own bytes hold 0xFE left out (no admitted text holds
//! one), so the marker is spelled by the named token and nothing else, and the token is
//! read nowhere else in the structure (a text token, as Qwen 3's `<tool_call>`, no longer
//! spells its text there). The automaton's ids are the vocabulary's; its file carries the
//! vocabulary's fingerprint.

use std::sync::Arc;

use fstc_core::bytes::ByteDfa;
use fstc_core::vocab::VocabTrie;

use crate::error::{child, TagsError};
use crate::format::{Format, Tag, TokenRef};
use crate::parse::{Spelling, StructuralTag};
use crate::pieces;
use crate::tokens;

/// The first byte of every marker (never in UTF-8).
pub(crate) const LEAD: u8 = 0xFE;

/// Ids up to this bound have a marker (four bytes of six bits).
const MAX_ID: u32 = 1 << 24;

/// The bytes that stand for token `id`.
pub(crate) fn marker(id: u32) -> [u8; 5] {
    let six = |shift: u32| 0x80 | ((id >> shift) & 0x3F) as u8;
    [LEAD, six(18), six(12), six(6), six(0)]
}

/// The DFA of `id`'s marker.
pub(crate) fn marker_dfa(id: u32) -> ByteDfa {
    pieces::marker(&marker(id))
}

/// How a structure uses a token it names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Read as the token itself (a format, a delimiter, a trigger).
    Read,
    /// Kept out of free text (`exclude_tokens`).
    Excluded,
}

/// Calls `f` on every token `format` (at `path`) names, with its path and use.
fn visit(
    format: &mut Format,
    path: &str,
    f: &mut dyn FnMut(&mut TokenRef, &str, Use) -> Result<(), TagsError>,
) -> Result<(), TagsError> {
    let tags = |tags: &mut [Tag], f: &mut dyn FnMut(&mut TokenRef, &str, Use) -> _| {
        let list = child(path, "tags");
        (tags.iter_mut().enumerate()).try_for_each(|(i, t)| visit_tag(t, &child(&list, i), f))
    };
    match format {
        Format::Token(token) => f(token, &child(path, "token"), Use::Read),
        Format::Sequence(elements) | Format::Or(elements) => {
            let list = child(path, "elements");
            (elements.iter_mut().enumerate()).try_for_each(|(i, e)| visit(e, &child(&list, i), f))
        }
        Format::Optional(inner) | Format::Star(inner) | Format::Plus(inner) => {
            visit(inner, &child(path, "content"), f)
        }
        Format::Repeat { content, .. } => visit(content, &child(path, "content"), f),
        Format::Tag(tag) => visit_tag(tag, path, f),
        Format::TriggeredTags(t) => {
            for (key, list, used) in [
                ("trigger_tokens", &mut t.trigger_tokens, Use::Read),
                ("exclude_tokens", &mut t.exclude_tokens, Use::Excluded),
            ] {
                let at = child(path, key);
                (list.iter_mut().enumerate()).try_for_each(|(i, r)| f(r, &child(&at, i), used))?;
            }
            tags(&mut t.tags, f)
        }
        Format::TagsWithSeparator(t) => tags(&mut t.tags, f),
        Format::ConstString(_)
        | Format::JsonSchema(_)
        | Format::Regex(_)
        | Format::Grammar { .. }
        | Format::AnyText { .. } => Ok(()),
    }
}

/// [`visit`] for a tag at `path`: its delimiter tokens, then its content.
fn visit_tag(
    tag: &mut Tag,
    path: &str,
    f: &mut dyn FnMut(&mut TokenRef, &str, Use) -> Result<(), TagsError>,
) -> Result<(), TagsError> {
    if let Some(token) = &mut tag.begin_token {
        f(token, &child(&child(path, "begin"), "token"), Use::Read)?;
    }
    if let Some(token) = &mut tag.end_token {
        f(token, &child(&child(path, "end"), "token"), Use::Read)?;
    }
    visit(&mut tag.content, &child(path, "content"), f)
}

/// Where the paths of `tag`'s tree start.
fn root(tag: &StructuralTag) -> &'static str {
    match tag.spelling {
        Spelling::Current => "/format",
        Spelling::Bare | Spelling::Legacy => "",
    }
}

impl StructuralTag {
    /// The tag with every token named by text (`"token": "<|python_tag|>"`) replaced by
    /// its id, `lookup` giving the id of a special or added token's name (fstc-detok's
    /// `Vocabulary::token_id`). An unknown name is an error at its path.
    pub fn resolve_token_names(
        &self,
        lookup: impl Fn(&str) -> Option<u32>,
    ) -> Result<StructuralTag, TagsError> {
        let mut tag = self.clone();
        let at = root(&tag);
        visit(&mut tag.format, at, &mut |token, path, _| {
            if let TokenRef::Name(name) = token {
                let id = lookup(name).ok_or_else(|| {
                    TagsError::at(
                        path,
                        format!("no special or added token of the vocabulary is called {name:?}"),
                    )
                })?;
                *token = TokenRef::Id(id);
            }
            Ok(())
        })?;
        Ok(tag)
    }
}

/// The id of `token` (at `path`); a name not resolved to an id is an error.
pub(crate) fn id_of(token: &TokenRef, path: &str) -> Result<u32, TagsError> {
    match token {
        TokenRef::Id(id) => Ok(*id),
        TokenRef::Name(name) => Err(TagsError::at(
            path,
            format!(
                "the token {name:?} is named, not numbered: resolve names against the vocabulary \
                 first (`StructuralTag::resolve_token_names`; the CLI and Python do)"
            ),
        )),
    }
}

/// An error at the first token `tag` names, for what is about texts (the byte DFA, the
/// call network): a token is not text, only a compile for a vocabulary reads it.
pub(crate) fn no_tokens(tag: &StructuralTag) -> Result<(), TagsError> {
    let mut format = tag.format.clone();
    visit(&mut format, root(tag), &mut |_, path, _| {
        Err(TagsError::at(
            path,
            "a token is not text: only a compile for a vocabulary (eager or lazy) reads it, \
             not the byte DFA or the call network",
        ))
    })
}

/// The ids of the tokens `tag` reads (sorted, once each), checked against the
/// vocabulary of `trie`: each resolved, in the vocabulary and not an EOS id (EOS ends
/// the output); each excluded one without text (free text is read as text: one token of
/// a text could not be kept out of it alone).
pub(crate) fn read_ids(tag: &StructuralTag, trie: &VocabTrie) -> Result<Vec<u32>, TagsError> {
    let mut ids = Vec::new();
    let mut format = tag.format.clone();
    let mut spelled = Vec::new();
    visit(&mut format, root(tag), &mut |token, path, used| {
        let id = id_of(token, path)?;
        let size = trie.vocab_size();
        if id as usize >= size || id >= MAX_ID {
            return Err(TagsError::at(
                path,
                format!("token {id} is not in the vocabulary ({size} ids)"),
            ));
        }
        if trie.eos_ids().contains(&id) {
            return Err(TagsError::at(
                path,
                format!("token {id} is an EOS id: it ends the output, it cannot be read inside it"),
            ));
        }
        match used {
            Use::Read => ids.push(id),
            Use::Excluded if trie.spell_token(id, &mut spelled) => {
                return Err(TagsError::at(
                    path,
                    format!(
                        "token {id} spells the text {:?}: free text is read as text, so one \
                         token of it cannot be kept out alone (name the token in \
                         `trigger_tokens`, or exclude the text with `any_text`'s `excludes`)",
                        String::from_utf8_lossy(&spelled)
                    ),
                ))
            }
            Use::Excluded => {}
        }
        Ok(())
    })?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// The vocabulary of `trie` with each of `ids` spelling its marker and the tokens whose
/// bytes hold [`LEAD`] left out; ids and EOS ids kept. Made once per vocabulary and ids
/// for the last few (`tokens::derived_shared`).
pub(crate) fn marker_trie_shared(trie: &VocabTrie, ids: &[u32]) -> Arc<VocabTrie> {
    tokens::derived_shared(trie, ids, || {
        tokens::rewritten(trie, |id, bytes| match ids.binary_search(&id) {
            Ok(_) => Some(marker(id).to_vec()),
            Err(_) if bytes.is_some_and(|b| b.contains(&LEAD)) => None,
            Err(_) => bytes.map(<[u8]>::to_vec),
        })
    })
}
