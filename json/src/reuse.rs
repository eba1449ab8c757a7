//! The translator's side of [`crate::memo`]: a `$ref` target's translation looked up
//! before it is made, remembered after, and what it added to the translator replayed.

use crate::lang::Lang;
use crate::memo::{within, Key, Mark, Replay};
use crate::schema::{resolve_in, Translator};

impl Translator<'_> {
    /// The remembered translation of `target` here, or the mark to remember it by.
    #[inline(never)]
    pub(crate) fn recall(&mut self, target: &str, level: usize) -> Result<Lang, Box<Mark>> {
        let root = self.root;
        let anchors = &self.anchors;
        let region = self.memo.region(target, root, |t| resolve_in(anchors, t));
        let reaches = |a: &&String| {
            region
                .as_ref()
                .map_or(true, |r| r.iter().any(|r| within(a, r)))
        };
        let active = self.active_refs.iter().chain(&self.folded_refs);
        let active = active.filter(reaches).cloned().collect();
        let hint = self.hint.clone().filter(|(l, _)| *l >= level);
        let key = Key {
            target: target.to_string(),
            level,
            any_floor: self.any_floor,
            canonical_numbers: self.canonical_numbers,
            hint,
            active,
        };
        if let Some(done) = self.memo.done.get(&key) {
            self.incomplete.extend(done.incomplete.iter().cloned());
            self.cuts.extend(done.cuts.iter().cloned());
            self.warnings.extend(done.warnings.iter().cloned());
            self.deepest = self.deepest.max(done.deepest);
            self.any_reach = self.any_reach.min(done.any_reach);
            return Ok(done.lang.clone());
        }
        let mark = Mark {
            key,
            incomplete: self.incomplete.len(),
            cuts: self.cuts.len(),
            warnings: self.warnings.len(),
            deepest: std::mem::replace(&mut self.deepest, 0),
            any_reach: std::mem::replace(&mut self.any_reach, usize::MAX),
        };
        Err(Box::new(mark))
    }

    /// Remembers the translation begun at `mark`, and restores what it replaced.
    #[inline(never)]
    #[allow(clippy::boxed_local)] // boxed for the caller: `reference` recurses, its frame stays small
    pub(crate) fn remember(&mut self, mark: Box<Mark>, lang: &Lang) {
        let text = lang.as_ref().map_or(0, String::len);
        self.automata.budget.hold(text + mark.key.target.len());
        let replay = Replay {
            lang: lang.clone(),
            incomplete: self.incomplete[mark.incomplete..].to_vec(),
            cuts: self.cuts[mark.cuts..].to_vec(),
            warnings: self.warnings[mark.warnings..].to_vec(),
            deepest: self.deepest,
            any_reach: self.any_reach,
        };
        self.deepest = self.deepest.max(mark.deepest);
        self.any_reach = self.any_reach.min(mark.any_reach);
        self.memo.done.insert(mark.key, replay);
    }

    /// Restores what the translation begun at `mark` replaced, when it failed.
    #[inline(never)]
    #[allow(clippy::boxed_local)] // as in `remember`
    pub(crate) fn forget(&mut self, mark: Box<Mark>) {
        self.deepest = self.deepest.max(mark.deepest);
        self.any_reach = self.any_reach.min(mark.any_reach);
    }
}
