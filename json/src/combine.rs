//! The applicators of one schema object, combined exactly by automata operations.
//!
//! A schema object is the conjunction of its parts: its assertions, `$ref`, each `allOf`
//! branch, `anyOf`/`oneOf`, `not`, `if`/`then`/`else` and each property dependency.
//! Each part is translated to regex text and the parts are intersected as byte DFAs
//! ([`crate::check::Automata`]); the result re-enters the regex as a spliced automaton.
//! This was chosen over look-ahead in the regex (`(?=A)B`) because a JSON value is
//! followed by more text, so a look-ahead body would need the value's end marked, and
//! nested intersections would pile up look-ahead obligations in one subset construction.
//!
//! Two things keep an intersection of output forms equal to the output form of the
//! conjunction:
//! - *Property order*: every object schema at one instance position orders its members
//!   by one list, the names any part of the combined schema mentions (first mention
//!   first), then other names; so `allOf: [{properties: {a}}, {properties: {b}}]`
//!   admits `{"a":…,"b":…}`.
//! - *Depth*: schema-free values (`true`, absent `items`) are cut at a nesting depth; in
//!   a combination they reach at least as deep as the deepest explicit container of any
//!   part (the parts are translated again when needed), so a part that says nothing about
//!   a property does not cut what another part allows there.
//!
//! `not S` is the complement of `S` within every JSON value up to the depth (numbers
//! written canonically: one spelling per value, see `CANONICAL_NUMBER`). It is exact
//! only when `S`'s translation admits every such value that satisfies `S` ("complete");
//! what breaks that (named properties of nested objects, formats whose grammar is a
//! subset, enums of containers, a recursion cut) is recorded while translating, and `not`
//! (and `if`, overlapping `oneOf`, `maxContains`) is refused when its operand has any of it.
//!
//! Every other difference (`oneOf`'s each branch minus the others, the items that do not
//! match `contains`) cuts its minuend to canonical numbers first: a value's other
//! spellings (`1.0`, `7676.0E32`) are in no complete language unless it lists them, so they
//! would survive the difference although the value satisfies the subtrahend.

use serde_json::{json, Map, Value};

use crate::error::{child, JsonSchemaError};
use crate::fold::reference_to;
use crate::lang::{alternation, Lang};
use crate::schema::{
    canonical_texts, is_trivial_map, schema_array, type_allows, types, Translator, ALL_TYPES,
    ASSERTIONS, DEPENDENCIES, FREE_ORDER, ONE_ORDER,
};

impl Translator<'_> {
    /// The conjunction of the parts of `map`, translated again with a deeper floor for
    /// schema-free values when one part's explicit structure goes deeper than another's
    /// schema-free values reach.
    pub(crate) fn combined(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        if let Some(lang) = self.presence_union(map, pointer, level)? {
            return Ok(lang);
        }
        let saved = (self.deepest, self.any_reach);
        self.deepest = 0;
        self.any_reach = usize::MAX;
        let mut parts = self.parts(map, pointer, level)?;
        let (deepest, reach) = (self.deepest, self.any_reach);
        if parts.len() > 1 && reach <= deepest && self.any_floor < deepest {
            let floor = std::mem::replace(&mut self.any_floor, deepest);
            parts = self.parts(map, pointer, level)?;
            self.any_floor = floor;
        }
        self.deepest = self.deepest.max(saved.0);
        self.any_reach = self.any_reach.min(saved.1);
        if parts.is_empty() {
            return Ok(Some(
                self.any_value(level, self.config.get_any_json_depth()),
            ));
        }
        let mut langs = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                Some(lang) => langs.push(lang),
                None => return Ok(None),
            }
        }
        self.automata.intersect(&langs)
    }

    /// The language of each part of `map` (`None`: empty).
    fn parts(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Vec<Lang>, JsonSchemaError> {
        let mut parts = Vec::new();
        if ASSERTIONS
            .iter()
            .any(|k| map.contains_key(*k) && !DEPENDENCIES.contains(k))
        {
            parts.push(self.assertions(map, pointer, level)?);
        }
        if let Some(target) = map.get("$ref") {
            parts.push(self.reference(target, pointer, level)?);
        }
        if let Some(branches) = map.get("allOf") {
            let branches = schema_array(branches, pointer, "allOf")?;
            let here = child(pointer, "allOf");
            for (i, branch) in branches.iter().enumerate() {
                if !crate::schema::is_trivial(branch) {
                    parts.push(self.schema(branch, &child(&here, &i.to_string()), level)?);
                }
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(keyword) {
                let branches = schema_array(branches, pointer, keyword)?;
                parts.push(self.union(keyword, branches, pointer, level)?);
            }
        }
        if let Some(negated) = map.get("not") {
            parts.push(self.negation(negated, &child(pointer, "not"), pointer, level)?);
        }
        if let Some(condition) = map.get("if") {
            parts.push(self.conditional(map, condition, pointer, level)?);
        }
        for keyword in DEPENDENCIES {
            if let Some(deps) = map.get(*keyword) {
                self.dependencies(keyword, deps, pointer, level, &mut parts)?;
            }
        }
        Ok(parts)
    }

    /// `anyOf` (alternation) and `oneOf`: the alternation when no branch admits a text
    /// satisfying another branch, else each branch minus the others (which needs complete
    /// branches). See [`Translator::one_of_disjoint`] for the test. Not inlined: its frame
    /// stays off the stack of the nesting levels that do not use it.
    #[inline(never)]
    fn union(
        &mut self,
        keyword: &str,
        branches: &[Value],
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let here = child(pointer, keyword);
        if keyword == "oneOf" {
            if let Some(lang) = self.one_of_with_trivial(branches, &here, pointer, level)? {
                return Ok(lang);
            }
        }
        let mut langs = Vec::new();
        let mut why_incomplete = None;
        let mut marks = Vec::with_capacity(branches.len());
        for (i, branch) in branches.iter().enumerate() {
            let mark = self.incomplete.len();
            marks.push(mark);
            let lang = self.schema(branch, &child(&here, &i.to_string()), level)?;
            let why = self.incomplete_since(mark, level);
            if let Some(lang) = lang {
                why_incomplete = why_incomplete.or(why.clone());
                langs.push((lang, why.is_none(), branch));
            }
        }
        let pairwise = |t: &Self| {
            (0..langs.len()).all(|i| (0..i).all(|j| t.exclusive(langs[i].2, langs[j].2)))
        };
        // Branches no value satisfies two of (distinct types, or distinct constants of one
        // required property: a discriminated union): "exactly one" is "any", whatever the
        // translations, with no automaton.
        if keyword == "anyOf" || pairwise(self) {
            return Ok(alternation(langs.into_iter().map(|l| l.0).collect()));
        }
        if self.mixed_orders_since(&marks, level) {
            // Objects here in one member order and in every order: a value in one branch's
            // other orders would survive the others' differences.
            let why = "some branch has schema-free objects here (every member order) and another \
                       objects in one order";
            why_incomplete = Some(why.to_string());
            for l in &mut langs {
                l.1 = false;
            }
        }
        if let Some(disjoint) = self.one_of_disjoint(&langs, level)? {
            return Ok(alternation(disjoint));
        }
        let langs: Vec<String> = langs.into_iter().map(|l| l.0).collect();
        if let Some(why) = why_incomplete {
            let why = format!(
                "the branches overlap, so `exactly one` needs each branch minus the others, \
                 which is exact only for branches whose translation is complete, and {why}; \
                 lenient mode treats it as anyOf"
            );
            self.refuse(pointer, keyword, &why)?;
            return Ok(alternation(langs));
        }
        // Each branch minus the others one at a time: each other branch's DFA is built once
        // for all, where the DFA of each union of all but one would be built once per branch.
        let mut exact = Vec::new();
        for (i, lang) in langs.iter().enumerate() {
            let mut mine = self.canonical(lang)?;
            for (j, other) in langs.iter().enumerate() {
                if let (Some(m), true) = (&mine, i != j) {
                    mine = self.automata.difference(m, Some(other.clone()))?;
                }
            }
            exact.extend(mine);
        }
        Ok(alternation(exact))
    }

    /// `oneOf` with a branch that admits every value (`true`, `{}`): exactly one branch
    /// holds iff none of the others does, `not anyOf[others]` (two such branches: nothing).
    /// The difference would be wrong here: that branch's objects are in every member
    /// order, where the others' follow the shared order. `None`: no such branch.
    #[inline(never)]
    fn one_of_with_trivial(
        &mut self,
        branches: &[Value],
        here: &str,
        pointer: &str,
        level: usize,
    ) -> Result<Option<Lang>, JsonSchemaError> {
        let trivial = |b: &Value| {
            matches!(b, Value::Bool(true)) || self.target(b).is_some_and(is_trivial_map)
        };
        let admit_all: Vec<usize> = (0..branches.len())
            .filter(|&i| trivial(&branches[i]))
            .collect();
        match admit_all.len() {
            0 => return Ok(None),
            1 if branches.len() > 1 => {}
            1 => return Ok(None),
            _ => return Ok(Some(None)),
        }
        let mut others = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            let at = child(here, &i.to_string());
            if i == admit_all[0] {
                continue;
            }
            if !self
                .root
                .pointer(&at)
                .is_some_and(|v| std::ptr::eq(v, branch))
            {
                let why = "a branch admits every value, so exactly one is none of the others, \
                           which are not where their pointers say (a folded schema); lenient \
                           mode treats it as anyOf";
                self.refuse(pointer, "oneOf", why)?;
                return Ok(None);
            }
            others.push(reference_to(&at));
        }
        let negated = match others.len() {
            1 => others.pop().expect("one"),
            _ => json!({ "anyOf": others }),
        };
        self.negation(&negated, here, pointer, level).map(Some)
    }

    /// Whether no value satisfies both schemas, read off their own keywords (through
    /// `$ref`s): disjoint `type`s, distinct constants (strings, booleans, null), or one
    /// property both require with distinct constants.
    fn exclusive(&self, a: &Value, b: &Value) -> bool {
        let (Some(a), Some(b)) = (self.target(a), self.target(b)) else {
            return false;
        };
        if let (Some(x), Some(y)) = (constant(a), constant(b)) {
            return x != y;
        }
        if let (Some(x), Some(y)) = (self.admitted_types(a, 0), self.admitted_types(b, 0)) {
            if !ALL_TYPES
                .iter()
                .any(|t| type_allows(&x, t) && type_allows(&y, t))
            {
                return true;
            }
        }
        if self.lacks_required(a, b) || self.lacks_required(b, a) {
            return true;
        }
        let required = |m: &Map<String, Value>, name: &str| matches!(m.get("required"), Some(Value::Array(r)) if r.iter().any(|n| n == name));
        let Some(Value::Object(props)) = a.get("properties") else {
            return false;
        };
        props.iter().any(|(name, x)| {
            let y = b.get("properties").and_then(|p| p.get(name));
            let both = required(a, name) && required(b, name);
            let values = (
                self.target(x).and_then(constant),
                y.and_then(|y| self.target(y)).and_then(constant),
            );
            both && matches!(values, (Some(x), Some(y)) if x != y)
        })
    }

    /// Whether `a` requires a property that `b` cannot have (`properties: {x: false}`, or
    /// names closed by `additionalProperties: false` without patterns), one of them
    /// admitting only objects: GitHub's job is a `runs-on` job or a `uses` job, each closed.
    fn lacks_required(&self, a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
        let objects_only = |m| self.admitted_types(m, 0).is_some_and(|t| t == ["object"]);
        let Some(Value::Array(required)) = a.get("required") else {
            return false;
        };
        if !objects_only(a) && !objects_only(b) {
            return false;
        }
        let closed = match b.get("additionalProperties") {
            Some(v) => *v == Value::Bool(false),
            None => !self.config.get_additional_properties(),
        } && !b.contains_key("patternProperties");
        let properties = b.get("properties").and_then(Value::as_object);
        let lacks = |name: &str| match properties.and_then(|p| p.get(name)) {
            Some(schema) => *schema == Value::Bool(false),
            None => closed,
        };
        required.iter().filter_map(Value::as_str).any(lacks)
    }

    /// The instance types `map` admits: its `type`, else the types its `anyOf` or
    /// `oneOf` branches admit together (`None` where that is not read off; `depth` bounds
    /// the branches' nesting).
    fn admitted_types(&self, map: &Map<String, Value>, depth: usize) -> Option<Vec<&'static str>> {
        if map.contains_key("type") || depth > 8 {
            return types(map, "").ok();
        }
        let branches = ["anyOf", "oneOf"].iter().find_map(|k| map.get(*k))?;
        let mut all = Vec::new();
        for branch in branches.as_array()? {
            for t in self.admitted_types(self.target(branch)?, depth + 1)? {
                if !all.contains(&t) {
                    all.push(t);
                }
            }
        }
        Some(all)
    }

    /// The schema object `schema` is or names through `$ref`s (`None` for booleans,
    /// non-local or missing targets, or chains longer than 8).
    fn target<'v>(&'v self, schema: &'v Value) -> Option<&'v Map<String, Value>> {
        let mut map = schema.as_object()?;
        for _ in 0..8 {
            let Some(Value::String(r)) = map.get("$ref") else {
                return Some(map);
            };
            if map.len() > 1 {
                return Some(map);
            }
            map = self.at(&self.resolve(r)?)?.as_object()?;
        }
        None
    }

    /// The languages of disjoint `oneOf` branches (`lang`, complete, schema), or `None`
    /// when some branch may admit a text that satisfies another. With every branch complete,
    /// disjoint languages suffice: a shared value would have its canonical spelling in
    /// both. Otherwise each branch is cut to canonical numbers and must miss every value of
    /// the types an incomplete branch allows (its language may lack some it satisfies).
    fn one_of_disjoint(
        &mut self,
        langs: &[(String, bool, &Value)],
        level: usize,
    ) -> Result<Option<Vec<String>>, JsonSchemaError> {
        let raw: Vec<String> = langs.iter().map(|l| l.0.clone()).collect();
        if langs.iter().all(|l| l.1) {
            return Ok(self.pairwise_disjoint(&raw, &raw, true)?.then_some(raw));
        }
        let mut cut = Vec::new();
        let mut covers = Vec::new();
        for (lang, complete, branch) in langs {
            let Some(canonical) = self.canonical(lang)? else {
                return Ok(None);
            };
            cut.push(canonical);
            covers.push(match complete {
                true => lang.clone(),
                false => self.type_cover(branch, level)?,
            });
        }
        Ok(self.pairwise_disjoint(&cut, &covers, false)?.then_some(cut))
    }

    /// Whether no `a[i]` meets a `b[j]`, `i != j` (`i < j` when the relation is symmetric).
    fn pairwise_disjoint(
        &self,
        a: &[String],
        b: &[String],
        symmetric: bool,
    ) -> Result<bool, JsonSchemaError> {
        for (i, x) in a.iter().enumerate() {
            let from = if symmetric { i + 1 } else { 0 };
            for (j, y) in b.iter().enumerate().skip(from) {
                if i != j && !self.automata.disjoint(x, y)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// `lang` cut to texts whose numbers are canonical (see [`canonical_texts`]).
    pub(crate) fn canonical(&mut self, lang: &str) -> Result<Lang, JsonSchemaError> {
        self.automata
            .intersect(&[lang.to_string(), canonical_texts()])
    }

    /// Every value of the types `schema`'s own `type`, `enum` or `const` allows (all
    /// types when it says none): a language containing every value `schema` admits.
    fn type_cover(&mut self, schema: &Value, level: usize) -> Result<String, JsonSchemaError> {
        let name = crate::schema::json_type;
        let mut types: Vec<Value> = match schema {
            Value::Object(map) => match (map.get("type"), map.get("enum"), map.get("const")) {
                (_, _, Some(c)) => vec![json!(name(c))],
                (_, Some(Value::Array(values)), _) => {
                    values.iter().map(|v| json!(name(v))).collect()
                }
                (Some(Value::String(t)), _, _) => vec![json!(t)],
                (Some(Value::Array(ts)), _, _) => ts.clone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        for t in &mut types {
            if t == "integer" {
                *t = json!("number");
            }
        }
        if types.is_empty() {
            return self.universe(level);
        }
        let cover = json!({"type": types, "additionalProperties": true});
        let saved = std::mem::replace(&mut self.canonical_numbers, true);
        let lang = self.schema(&cover, "", level);
        self.canonical_numbers = saved;
        Ok(lang?.expect("every type has values"))
    }

    /// The first reason recorded since `mark` that makes a translation at `level`
    /// incomplete (object order at `level` itself is covered by the shared order).
    pub(crate) fn incomplete_since(&self, mark: usize, level: usize) -> Option<String> {
        self.incomplete[mark..]
            .iter()
            .find(|(at, why)| *at != Some(level) && why != FREE_ORDER)
            .map(|(_, why)| why.clone())
    }

    /// Whether the translations since `mark` have objects at `level` in one member order
    /// and in every order.
    fn mixed_orders_since(&self, marks: &[usize], level: usize) -> bool {
        let has = |what: &str| {
            marks
                .iter()
                .zip(marks.iter().skip(1).chain([&self.incomplete.len()]))
                .any(|(&from, &to)| {
                    self.incomplete[from..to]
                        .iter()
                        .any(|(at, why)| *at == Some(level) && why == what)
                })
        };
        has(ONE_ORDER) && has(FREE_ORDER)
    }

    /// `not`: every value up to the depth (canonical numbers) that the operand does not admit.
    fn negation(
        &mut self,
        negated: &Value,
        at: &str,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        self.at_complement_floor(level, |t| t.negation_here(negated, at, pointer, level))
    }

    /// Runs `f`, which complements an operand within the universe, with schema-free values
    /// reaching at least as deep as the universe's do (its arrays' items and objects'
    /// members are one level down): an operand cut shallower would leave the values just
    /// past its cut in the complement (`not: true` would admit `[[[]]]`).
    fn at_complement_floor<T>(&mut self, level: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let deep = (level + self.config.get_any_json_depth()).max(self.any_floor);
        let floor = std::mem::replace(&mut self.any_floor, deep);
        let out = f(self);
        self.any_floor = floor;
        out
    }

    fn negation_here(
        &mut self,
        negated: &Value,
        at: &str,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let mark = self.incomplete.len();
        let lang = self.schema(negated, at, level)?;
        if let Some(why) = self.incomplete_since(mark, level) {
            let why = format!(
                "the complement is exact only when the operand's translation admits every \
                 value that satisfies it, and {why}"
            );
            self.refuse(pointer, "not", &why)?;
            return Ok(Some(
                self.any_value(level, self.config.get_any_json_depth()),
            ));
        }
        let universe = self.universe(level)?;
        self.automata.difference(&universe, lang)
    }

    /// `if`/`then`/`else`: `(if ∩ then) ∪ (¬if ∩ else)`, absent branches admitting all.
    fn conditional(
        &mut self,
        map: &Map<String, Value>,
        condition: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        self.at_complement_floor(level, |t| {
            t.conditional_here(map, condition, pointer, level)
        })
    }

    fn conditional_here(
        &mut self,
        map: &Map<String, Value>,
        condition: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let mark = self.incomplete.len();
        let yes = self.schema(condition, &child(pointer, "if"), level)?;
        if let Some(why) = self.incomplete_since(mark, level) {
            let why = format!(
                "`else` applies to the values that fail `if`, a complement that is exact only \
                 when the condition's translation admits every value satisfying it, and {why}"
            );
            self.refuse(pointer, "if", &why)?;
            return Ok(Some(
                self.any_value(level, self.config.get_any_json_depth()),
            ));
        }
        let branch = |t: &mut Self, keyword: &str| -> Result<Option<Lang>, JsonSchemaError> {
            match map.get(keyword) {
                Some(s) => Ok(Some(t.schema(s, &child(pointer, keyword), level)?)),
                None => Ok(None),
            }
        };
        let then = branch(self, "then")?;
        let otherwise = branch(self, "else")?;
        let universe = self.universe(level)?;
        let no = self.automata.difference(&universe, yes.clone())?;
        let mut alts = Vec::new();
        for (cond, body) in [(yes, then), (no, otherwise)] {
            let lang = match (cond, body) {
                (None, _) | (_, Some(None)) => None,
                (Some(c), None) => Some(c),
                (Some(c), Some(Some(b))) => self.automata.intersect(&[c, b])?,
            };
            alts.extend(lang);
        }
        Ok(alternation(alts))
    }

    /// `dependentRequired`, `dependentSchemas` and draft-07 `dependencies`: one part per
    /// property, "the property is absent, or (it is present and) the dependency holds".
    fn dependencies(
        &mut self,
        keyword: &str,
        deps: &Value,
        pointer: &str,
        level: usize,
        parts: &mut Vec<Lang>,
    ) -> Result<(), JsonSchemaError> {
        let Value::Object(deps) = deps else {
            return Err(JsonSchemaError::at(pointer, keyword, "must be an object"));
        };
        let here = child(pointer, keyword);
        for (name, dep) in deps {
            let at = child(&here, name);
            let absent = json!({"properties": {name: false}, "additionalProperties": true});
            let absent = self.schema(&absent, &at, level)?;
            let present = match dep {
                Value::Array(names) if keyword != "dependentSchemas" => {
                    if !names.iter().all(Value::is_string) {
                        return Err(JsonSchemaError::at(
                            &at,
                            keyword,
                            "must list property names (strings)",
                        ));
                    }
                    let mut required = vec![Value::String(name.clone())];
                    required.extend(names.iter().cloned());
                    let schema = json!({"required": required, "additionalProperties": true});
                    self.schema(&schema, &at, level)?
                }
                Value::Object(_) | Value::Bool(_) if keyword != "dependentRequired" => {
                    let schema = json!({"required": [name], "additionalProperties": true});
                    match (
                        self.schema(&schema, &at, level)?,
                        self.schema(dep, &at, level)?,
                    ) {
                        (Some(a), Some(b)) => self.automata.intersect(&[a, b])?,
                        _ => None,
                    }
                }
                _ => {
                    let want = match keyword {
                        "dependentRequired" => "an array of property names",
                        "dependentSchemas" => "a schema",
                        _ => "an array of property names or a schema",
                    };
                    return Err(JsonSchemaError::at(&at, keyword, format!("must be {want}")));
                }
            };
            let alts: Vec<String> = absent.into_iter().chain(present).collect();
            parts.push(alternation(alts));
        }
        Ok(())
    }

    /// Every JSON value up to the depth, numbers canonical and objects in the shared
    /// order: the set `not` and `else` complement in.
    fn universe(&mut self, level: usize) -> Result<String, JsonSchemaError> {
        let saved = std::mem::replace(&mut self.canonical_numbers, true);
        let any = json!({"additionalProperties": true});
        let lang = self.schema(&any, "", level);
        self.canonical_numbers = saved;
        Ok(lang?.expect("the universe is not empty"))
    }
}

/// The one value a schema object allows by `const` or a one-member `enum`, when it is a
/// string, a boolean or null (numbers compare by value, not by their JSON).
fn constant(map: &Map<String, Value>) -> Option<&Value> {
    let c = match (map.get("const"), map.get("enum")) {
        (Some(c), _) => c,
        (None, Some(Value::Array(one))) if one.len() == 1 => &one[0],
        _ => return None,
    };
    (c.is_string() || c.is_boolean() || c.is_null()).then_some(c)
}
