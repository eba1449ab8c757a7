//! Translations of `$ref` targets, remembered: a definition used in many places (Azure
//! Pipelines' `step`, under every job of every stage, each a union of 228 task objects) is
//! translated once per context instead of once per use.
//!
//! A target's translation depends on the document and the options (fixed for a compile)
//! and on the translator's state where it is used: the nesting level, the floor of
//! schema-free values, whether numbers are canonical, the member-order hint when it is at
//! that level or deeper, and the active `$ref`s that the target can reach (they decide
//! where recursion is cut and which `$ref`s fold in). Those are the key. What the
//! translation adds to the translator (reasons it is incomplete, recursion cuts, warnings,
//! how deep its containers go and its schema-free values reach) is kept and replayed.
//! Where the translation cannot depend on the level (no indentation, and the floor of
//! schema-free values above it), the level leaves the key and the replay's levels are
//! kept relative to it: Azure Pipelines' steps were translated once at each of 7 levels.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use fstc_core::compiled::Warning;

use crate::lang::Lang;

/// The remembered translations of one document.
#[derive(Default)]
pub(crate) struct Memo {
    /// The `$ref` targets written anywhere inside the sub-schema at a pointer (the
    /// document's root: a dynamic reference may reach anything).
    direct: HashMap<String, Vec<String>>,
    /// The locations a target's translation can read: the target and every location a
    /// chain of `$ref`s from inside it leads to.
    regions: HashMap<String, Option<Rc<[String]>>>,
    pub(crate) done: HashMap<Key, Replay>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) target: String,
    pub(crate) level: usize,
    pub(crate) any_floor: usize,
    pub(crate) canonical_numbers: bool,
    pub(crate) hint: Option<(usize, Vec<String>)>,
    pub(crate) active: Vec<String>,
}

/// What a translation added to the translator; its levels are counted from the base of
/// its mark (0, or the level it was made at when it does not depend on it).
pub(crate) struct Replay {
    pub(crate) lang: Lang,
    pub(crate) incomplete: Vec<(Option<usize>, String)>,
    pub(crate) cuts: Vec<String>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) deepest: Option<usize>,
    pub(crate) any_reach: Option<usize>,
}

/// `Key::level` of a translation remembered relative to the level it was made at.
pub(crate) const RELATIVE: usize = usize::MAX;

/// Where a translation started: its key and what the translator held before.
pub(crate) struct Mark {
    pub(crate) key: Key,
    /// The level the replay's levels count from (see [`RELATIVE`]).
    pub(crate) base: usize,
    pub(crate) incomplete: usize,
    pub(crate) cuts: usize,
    pub(crate) warnings: usize,
    pub(crate) deepest: usize,
    pub(crate) any_reach: usize,
}

/// Most locations a region lists: past them, every active `$ref` is in the key (a long
/// chain of `$ref`s would otherwise be walked once per link).
const MAX_REGION: usize = 64;

/// Whether `pointer` is `root` or inside it.
pub(crate) fn within(pointer: &str, root: &str) -> bool {
    pointer
        .strip_prefix(root)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl Memo {
    /// The locations `target`'s translation can read (see [`Memo::regions`]), in `root`
    /// whose `$ref`s `resolve` reads; `None` when there are more than [`MAX_REGION`].
    pub(crate) fn region(
        &mut self,
        target: &str,
        root: &Value,
        resolve: impl Fn(&str) -> Option<String>,
    ) -> Option<Rc<[String]>> {
        if let Some(region) = self.regions.get(target) {
            return region.clone();
        }
        let mut roots: Vec<String> = vec![target.to_string()];
        let mut next = 0;
        while next < roots.len() && roots.len() <= MAX_REGION {
            let at = roots[next].clone();
            next += 1;
            for t in self.direct_refs(&at, root, &resolve) {
                if !roots.iter().any(|r| within(&t, r)) {
                    roots.push(t);
                }
            }
        }
        let region = (roots.len() <= MAX_REGION).then(|| Rc::from(roots));
        self.regions.insert(target.to_string(), region.clone());
        region
    }

    /// The `$ref` targets inside the sub-schema at `pointer` (see [`Memo::direct`]).
    fn direct_refs(
        &mut self,
        pointer: &str,
        root: &Value,
        resolve: &impl Fn(&str) -> Option<String>,
    ) -> Vec<String> {
        if let Some(refs) = self.direct.get(pointer) {
            return refs.clone();
        }
        let mut found = HashSet::new();
        let mut stack: Vec<&Value> = root.pointer(pointer).into_iter().collect();
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if map.contains_key("$dynamicRef") || map.contains_key("$recursiveRef") {
                        found.insert(String::new());
                    }
                    if let Some(t) = map.get("$ref").and_then(Value::as_str) {
                        found.extend(resolve(t));
                    }
                    stack.extend(map.values());
                }
                Value::Array(list) => stack.extend(list),
                _ => {}
            }
        }
        let mut refs: Vec<String> = found.into_iter().collect();
        refs.sort();
        self.direct.insert(pointer.to_string(), refs.clone());
        refs
    }
}
