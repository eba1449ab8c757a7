//! The translator's side of [`crate::memo`]: a `$ref` target's translation looked up
//! before it is made, remembered after, and what it added to the translator replayed.

use crate::config::Whitespace;
use crate::lang::Lang;
use crate::memo::{within, Key, Mark, Replay, RELATIVE};
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
        let base = self.relative_base(level);
        let hint = self.hint.clone().filter(|(l, _)| *l >= level);
        let key = Key {
            target: target.to_string(),
            level: if base > 0 { RELATIVE } else { level },
            any_floor: if base > 0 { 0 } else { self.any_floor },
            canonical_numbers: self.canonical_numbers,
            hint: hint.map(|(l, names)| (l - base, names)),
            active,
        };
        if let Some(done) = self.memo.done.get(&key) {
            let up = |l: usize| l + base;
            let incomplete = done.incomplete.iter().map(|(l, w)| (l.map(up), w.clone()));
            self.incomplete.extend(incomplete);
            self.cuts.extend(done.cuts.iter().cloned());
            self.warnings.extend(done.warnings.iter().cloned());
            self.deepest = self.deepest.max(done.deepest.map_or(0, up));
            self.any_reach = self.any_reach.min(done.any_reach.map_or(usize::MAX, up));
            return Ok(done.lang.clone());
        }
        let mark = Mark {
            key,
            base,
            incomplete: self.incomplete.len(),
            cuts: self.cuts.len(),
            warnings: self.warnings.len(),
            deepest: std::mem::replace(&mut self.deepest, 0),
            any_reach: std::mem::replace(&mut self.any_reach, usize::MAX),
        };
        Err(Box::new(mark))
    }

    /// The level a translation at `level` is remembered relative to, or 0 (absolute): a
    /// translation does not depend on its level when nothing is indented and schema-free
    /// values keep their own depth from there down (the floor is above it), so the same
    /// definition under every job of every stage is translated once.
    fn relative_base(&self, level: usize) -> usize {
        let indented = matches!(self.config.get_whitespace(), Whitespace::Pretty { .. });
        match !indented && self.any_floor < level {
            true => level,
            false => 0,
        }
    }

    /// Remembers the translation begun at `mark`, and restores what it replaced.
    #[inline(never)]
    #[allow(clippy::boxed_local)] // boxed for the caller: `reference` recurses, its frame stays small
    pub(crate) fn remember(&mut self, mark: Box<Mark>, lang: &Lang) {
        self.drop_repeated_records(mark.incomplete, mark.cuts);
        let text = lang.as_ref().map_or(0, String::len);
        self.automata.budget.hold(text + mark.key.target.len());
        let replay = self.replay_since(&mark, lang);
        self.deepest = self.deepest.max(mark.deepest);
        self.any_reach = self.any_reach.min(mark.any_reach);
        if let Some(replay) = replay {
            self.memo.done.insert(mark.key, replay);
        }
    }

    /// What the translation begun at `mark` added, its levels counted from the mark's
    /// base; `None` (not remembered) if one is above the base, which none is expected to be.
    fn replay_since(&self, mark: &Mark, lang: &Lang) -> Option<Replay> {
        let down = |l: usize| l.checked_sub(mark.base);
        let mut incomplete = Vec::new();
        for (l, why) in &self.incomplete[mark.incomplete..] {
            let l = match l {
                Some(l) => Some(down(*l)?),
                None => None,
            };
            incomplete.push((l, why.clone()));
        }
        let deepest = match self.deepest {
            0 => None,
            d => Some(down(d)?),
        };
        let any_reach = match self.any_reach {
            usize::MAX => None,
            r => Some(down(r)?),
        };
        Some(Replay {
            lang: lang.clone(),
            incomplete,
            cuts: self.cuts[mark.cuts..].to_vec(),
            warnings: self.warnings[mark.warnings..].to_vec(),
            deepest,
            any_reach,
        })
    }

    /// Drops the repeats among the reasons and recursion cuts recorded since the marks
    /// (the first of each kept, in order): every reader asks for the first one or whether
    /// one is there, and a union of objects translated again below itself, replayed at
    /// each use, would otherwise copy the same records exponentially often.
    pub(crate) fn drop_repeated_records(&mut self, incomplete: usize, cuts: usize) {
        let mut seen = std::collections::HashSet::new();
        let kept: Vec<_> = self
            .incomplete
            .drain(incomplete..)
            .filter(|r| seen.insert(r.clone()))
            .collect();
        self.incomplete.extend(kept);
        let mut seen = std::collections::HashSet::new();
        let kept: Vec<_> = self
            .cuts
            .drain(cuts..)
            .filter(|c| seen.insert(c.clone()))
            .collect();
        self.cuts.extend(kept);
    }

    /// Restores what the translation begun at `mark` replaced, when it failed.
    #[inline(never)]
    #[allow(clippy::boxed_local)] // as in `remember`
    pub(crate) fn forget(&mut self, mark: Box<Mark>) {
        self.deepest = self.deepest.max(mark.deepest);
        self.any_reach = self.any_reach.min(mark.any_reach);
    }
}
