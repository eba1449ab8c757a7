//! Schema → regex text, keyword by keyword.
//!
//! Each sub-schema becomes a [`Lang`]: the regex of the JSON texts it admits in the
//! chosen output form, or `None` for the empty language (so `false`, an unsatisfiable
//! `required` or a recursion cut propagate instead of failing). Combinations that need
//! intersection or complement of languages are refused by name until the byte-DFA
//! algebra is used here.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::budget::Budget;
use crate::check::Automata;
use crate::config::{Config, Whitespace};
use crate::decimal::NumberTexts;
use crate::error::{child, JsonSchemaError};
use crate::lang::{alternation, Lang};
use crate::memo::Memo;
use crate::strings;
use crate::value::Located;
use fstc_core::compiled::Warning;

/// Keywords translated as parts of their own (not among the type assertions).
pub(crate) const DEPENDENCIES: &[&str] = &["dependentRequired", "dependencies", "dependentSchemas"];

/// Keywords that only annotate, plus the containers of definitions: never constrain.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "then",
    "else",
    "minContains",
    "maxContains",
];

/// Keywords that constrain the instance directly (the siblings of an applicator).
pub(crate) const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "dependentRequired",
    "dependencies",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords not enforced, each with the reason given when refused.
pub(crate) const REFUSED: &[(&str, &str)] = &[
    ("$dynamicRef", "dynamic scopes are not supported"),
    ("$recursiveRef", "dynamic scopes are not supported"),
];

/// Why objects at a level are in one member order (a translated object with named members).
pub(crate) const ONE_ORDER: &str = "a nested object's members are written in one order";

/// A note, not a reason (see `Translator::incomplete_since`): schema-free objects at a level
/// are in every member order; beside objects in one order there, a difference is not exact.
pub(crate) const FREE_ORDER: &str = "schema-free objects here are in every member order";

/// Most sub-schemas translated one inside another (through keywords and `$ref`s).
pub(crate) const MAX_NESTING: usize = 1000;

/// Most bytes of call stack the translation's recursion may take below its first
/// sub-schema. It recurses once per level, with frames that differ by keyword and build
/// (2–3 KB a level in a test build), so the bound is on the bytes themselves: half the
/// 2 MiB of a Rust thread's stack, the rest left for the work done at the deepest level.
const MAX_STACK_BYTES: usize = 1 << 20;

/// The address of a local of the caller's frame, for the stack taken between two calls.
#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The translation of one schema document.
pub(crate) struct Translator<'a> {
    pub(crate) root: &'a Value,
    pub(crate) config: &'a Config,
    pub(crate) warnings: Vec<Warning>,
    /// `$ref` targets being expanded, innermost last (for the recursion cut).
    pub(crate) active_refs: Vec<String>,
    /// `$ref` targets a fold took into the object being translated: active only for the
    /// members that stand inside them (`crate::fold`), so a member from one target that
    /// refers to another is not read as recursion.
    pub(crate) folded_refs: Vec<String>,
    /// The sub-schemas at the JSON pointers looked up so far: a fold looks up every
    /// object it meets, and resolving a pointer token by token allocates per token.
    pointers: RefCell<HashMap<String, Option<&'a Value>>>,
    /// Sub-schemas being translated, one inside the next (bounded by [`MAX_NESTING`]).
    nesting: usize,
    /// The stack address where the outermost of them started (see [`MAX_STACK_BYTES`]).
    stack_base: usize,
    /// Targets where recursion was cut at [`Config::recursion_depth`].
    pub(crate) cuts: Vec<String>,
    pub(crate) anchors: HashMap<String, String>,
    /// The automata spliced into the regex text so far.
    pub(crate) automata: Automata,
    /// The member order of objects at one nesting level: (level, names).
    pub(crate) hint: Option<(usize, Vec<String>)>,
    /// Schema-free values open containers down to at least this level.
    pub(crate) any_floor: usize,
    /// Deepest level of an explicit container translated (see `combine`).
    pub(crate) deepest: usize,
    /// Least level that schema-free values translated reach.
    pub(crate) any_reach: usize,
    /// Why translations so far may miss values satisfying their schema: (the level of an
    /// object whose members are ordered, else `None`; the reason).
    pub(crate) incomplete: Vec<(Option<usize>, String)>,
    /// Write numbers canonically (the universe of `not`).
    pub(crate) canonical_numbers: bool,
    /// The texts of the document's numbers, for their exact values.
    pub(crate) numbers: &'a NumberTexts,
    /// The translations of `$ref` targets so far.
    pub(crate) memo: Memo,
}

impl<'a> Translator<'a> {
    /// The translator of the document `root`, whose numbers have the texts `numbers`.
    pub(crate) fn new(
        root: &'a Value,
        config: &'a Config,
        numbers: &'a NumberTexts,
        anchors: HashMap<String, String>,
    ) -> Translator<'a> {
        let budget = Budget::new(config.get_time_budget(), config.get_memory_budget());
        Translator {
            root,
            config,
            warnings: Vec::new(),
            active_refs: Vec::new(),
            folded_refs: Vec::new(),
            pointers: RefCell::new(HashMap::new()),
            nesting: 0,
            stack_base: 0,
            cuts: Vec::new(),
            anchors,
            automata: Automata::with_budget(config.get_dfa_state_limit(), budget),
            hint: None,
            any_floor: 0,
            deepest: 0,
            any_reach: usize::MAX,
            incomplete: Vec::new(),
            canonical_numbers: false,
            numbers,
            memo: Memo::default(),
        }
    }

    pub(crate) fn root(&mut self) -> Result<Lang, JsonSchemaError> {
        self.schema(self.root, "", 0)
    }

    pub(crate) fn into_parts(self) -> (Vec<Warning>, Automata) {
        let mut warnings = self.warnings;
        let mut seen = std::collections::HashSet::new();
        warnings.retain(|w| seen.insert(w.clone()));
        (warnings, self.automata)
    }

    /// A keyword that cannot be enforced exactly: an error, or a warning when lenient.
    pub(crate) fn refuse(
        &mut self,
        pointer: &str,
        keyword: &str,
        why: &str,
    ) -> Result<(), JsonSchemaError> {
        if !self.config.get_lenient() {
            return Err(JsonSchemaError::at(
                pointer,
                keyword,
                format!("{why} (use lenient mode to leave it out)"),
            ));
        }
        self.warnings.push(Warning {
            pointer: pointer.into(),
            keyword: keyword.into(),
            message: why.into(),
        });
        Ok(())
    }

    /// The language of the schema `value` at `pointer`, for a value nested `level` deep.
    pub(crate) fn schema(
        &mut self,
        value: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let here = stack_address();
        if self.nesting == 0 {
            self.stack_base = here;
        }
        if self.nesting >= MAX_NESTING || self.stack_base.abs_diff(here) > MAX_STACK_BYTES {
            let why = format!(
                "sub-schemas and `$ref`s nest more than {} deep here (the translation's \
                 bound: at most {MAX_NESTING} levels in {} KiB of call stack; a chain of \
                 references this long is refused)",
                self.nesting,
                MAX_STACK_BYTES >> 10
            );
            return Err(JsonSchemaError::at(pointer, "schema", why));
        }
        self.automata.budget.enter(pointer)?;
        self.nesting += 1;
        let lang = self.schema_here(value, pointer, level);
        self.nesting -= 1;
        self.automata.budget.leave();
        lang
    }

    fn schema_here(
        &mut self,
        value: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let lang = match value {
            Value::Bool(true) => Some(self.any_value(level, self.config.get_any_json_depth())),
            Value::Bool(false) => None,
            Value::Object(map) => self.object_schema(map, pointer, level)?,
            _ => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "schema",
                    "a schema must be an object or a boolean",
                ))
            }
        };
        // Each sub-schema's text becomes a machine its users call (see `Automata::call`).
        Ok(lang.map(|text| self.automata.call(text, pointer)))
    }

    pub(crate) fn object_schema(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        if let Some(lang) = self.unevaluated_rewritten(map, pointer, level) {
            return lang;
        }
        for (keyword, why) in REFUSED {
            if map.contains_key(*keyword) {
                self.refuse(pointer, keyword, why)?;
            }
        }
        let outer = match &self.hint {
            Some((l, _)) if *l == level => None,
            _ => {
                let mut names = Vec::new();
                self.collect_names(map, &mut names, 0);
                Some(self.hint.replace((level, names)))
            }
        };
        // `allOf` and `$ref` folded in where exact (`crate::fold`), their targets active.
        let folded = self.fold(map, pointer);
        let active = self.folded_refs.len();
        let map = match &folded {
            Some(folded) => {
                self.folded_refs.extend(folded.targets.iter().cloned());
                &folded.map
            }
            None => map,
        };
        let lang = self.combined(map, pointer, level);
        self.folded_refs.truncate(active);
        if let Some(outer) = outer {
            self.hint = outer;
        }
        lang
    }

    /// The member order of objects at `level`: the names the combined schema mentions.
    pub(crate) fn hint_names(&self, level: usize) -> Vec<String> {
        match &self.hint {
            Some((l, names)) if *l == level => names.clone(),
            _ => Vec::new(),
        }
    }

    /// The property names `map` mentions (properties, required, dependencies), then
    /// those of its applicators and local references, first mention first.
    fn collect_names(&self, map: &Map<String, Value>, out: &mut Vec<String>, depth: usize) {
        let mut add = |name: &str| {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        };
        if let Some(Value::Object(p)) = map.get("properties") {
            p.keys().for_each(|k| add(k));
        }
        if let Some(Value::Array(r)) = map.get("required") {
            r.iter().filter_map(Value::as_str).for_each(&mut add);
        }
        for keyword in DEPENDENCIES {
            if let Some(Value::Object(d)) = map.get(*keyword) {
                for (k, v) in d {
                    add(k);
                    if let Value::Array(names) = v {
                        names.iter().filter_map(Value::as_str).for_each(&mut add);
                    }
                }
            }
        }
        if depth >= 8 {
            return;
        }
        let mut subs: Vec<&Value> = Vec::new();
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(b)) = map.get(keyword) {
                subs.extend(b);
            }
        }
        for keyword in ["not", "if", "then", "else"] {
            subs.extend(map.get(keyword));
        }
        for keyword in ["dependentSchemas", "dependencies"] {
            if let Some(Value::Object(d)) = map.get(keyword) {
                subs.extend(d.values());
            }
        }
        if let Some(target) = map.get("$ref").and_then(Value::as_str) {
            subs.extend(self.resolve(target).and_then(|p| self.at(&p)));
        }
        for sub in subs {
            if let Value::Object(m) = sub {
                self.collect_names(m, out, depth + 1);
            }
        }
    }

    /// The sub-schema at `pointer` in the document (remembered).
    pub(crate) fn at(&self, pointer: &str) -> Option<&'a Value> {
        if let Some(found) = self.pointers.borrow().get(pointer) {
            return *found;
        }
        let found = self.root.pointer(pointer);
        self.pointers
            .borrow_mut()
            .insert(pointer.to_string(), found);
        found
    }

    /// The JSON pointer a local `$ref` target names.
    pub(crate) fn resolve(&self, target: &str) -> Option<String> {
        resolve_in(&self.anchors, target)
    }

    /// A local `$ref`: `#`, `#/json/pointer` or `#anchor`.
    pub(crate) fn reference(
        &mut self,
        target: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let Some(target) = target.as_str() else {
            return Err(JsonSchemaError::at(pointer, "$ref", "must be a string"));
        };
        let Some(target_pointer) = self.resolve(target) else {
            let why = format!("`{target}` is not a local reference (`#`, `#/pointer` or a `$anchor` of this document)");
            return Err(JsonSchemaError::at(pointer, "$ref", why));
        };
        let Some(schema) = self.at(&target_pointer) else {
            return Err(JsonSchemaError::at(
                pointer,
                "$ref",
                format!("`{target}` points at nothing"),
            ));
        };
        let active = self
            .active_refs
            .iter()
            .chain(&self.folded_refs)
            .filter(|p| **p == target_pointer)
            .count();
        if active >= self.config.get_recursion_depth() {
            self.cuts.push(target.to_string());
            self.incomplete.push((
                None,
                format!("the recursive `$ref` `{target}` is cut there"),
            ));
            return Ok(None);
        }
        let folded = self.enter_folded(&target_pointer);
        let mark = match self.recall(&target_pointer, level) {
            Ok(lang) => {
                self.folded_refs = folded;
                return Ok(lang);
            }
            Err(mark) => mark,
        };
        self.active_refs.push(target_pointer.clone());
        let lang = self.schema(schema, &target_pointer, level);
        self.active_refs.pop();
        self.folded_refs = folded;
        match &lang {
            Ok(l) => self.remember(mark, l),
            Err(_) => self.forget(mark),
        }
        lang
    }

    /// Keeps active only the folded targets that `pointer` stands inside, and returns all
    /// of them to be restored after: a folded object's members are `$ref`s to where they
    /// stand, and one from target A that refers to target B is not inside B.
    #[inline(never)]
    fn enter_folded(&mut self, pointer: &str) -> Vec<String> {
        let inside: Vec<String> = self
            .folded_refs
            .iter()
            .filter(|t| crate::memo::within(pointer, t))
            .cloned()
            .collect();
        std::mem::replace(&mut self.folded_refs, inside)
    }

    /// The assertions of one schema object, by instance type.
    pub(crate) fn assertions(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        if map.contains_key("enum") || map.contains_key("const") {
            return self.enumeration(map, pointer, level);
        }
        let types = types(map, pointer)?;
        let mut langs = Vec::new();
        for t in types {
            let lang = match t {
                "null" => Some("null".to_string()),
                "boolean" => Some("(?:true|false)".to_string()),
                "string" => self.string(map, pointer)?,
                "integer" => self.number(map, pointer, true)?,
                "number" => self.number(map, pointer, false)?,
                "array" => self.array(map, pointer, level)?,
                _ => self.object(map, pointer, level)?,
            };
            langs.extend(lang);
        }
        Ok(alternation(langs))
    }

    /// `enum` and `const`: the listed values (serialized in the output form) that the
    /// sibling keywords admit, checked on the siblings' own automaton.
    fn enumeration(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let listed: Vec<(&Value, String)> = match map.get("enum") {
            Some(Value::Array(values)) => {
                let at = child(pointer, "enum");
                let at = |i: usize| child(&at, &i.to_string());
                values.iter().enumerate().map(|(i, v)| (v, at(i))).collect()
            }
            Some(_) => return Err(JsonSchemaError::at(pointer, "enum", "must be an array")),
            None => vec![(&map["const"], child(pointer, "const"))],
        };
        let mut values: Vec<Located> = listed
            .iter()
            .map(|(value, pointer)| Located { value, pointer })
            .collect();
        let const_at = child(pointer, "const");
        if let (Some(c), true) = (map.get("const"), map.contains_key("enum")) {
            let c = Located {
                value: c,
                pointer: &const_at,
            };
            values.retain(|v| crate::value::equal(*v, c, self.numbers));
        }
        let mut rest = map.clone();
        rest.remove("enum");
        rest.remove("const");
        let filtered = ASSERTIONS.iter().any(|k| rest.contains_key(*k));
        if filtered && !rest.contains_key("type") {
            // Only the listed values' types are filtered: the other types' languages (every
            // array, object, ... up to the depth) would only be built to go unused.
            let mut listed_types: Vec<Value> = Vec::new();
            for v in &values {
                let t = Value::from(json_type(v.value));
                if !listed_types.contains(&t) {
                    listed_types.push(t);
                }
            }
            rest.insert("type".into(), Value::Array(listed_types));
        }
        let texts: Vec<String> = values
            .iter()
            .map(|v| crate::value::to_text(*v, self.numbers, self.config.get_whitespace(), level))
            .collect();
        if let Some(v) = values.iter().find(|v| !canonical_value(v.value)) {
            self.incomplete.push((
                None,
                format!(
                    "the listed value {} has other spellings that the output form does not list",
                    v.value
                ),
            ));
        }
        let texts = if filtered {
            match self.assertions(&rest, pointer, level)? {
                None => Vec::new(),
                Some(regex) => self.automata.filter_matching(&regex, texts)?,
            }
        } else {
            texts
        };
        let escapes = self.config.get_escapes();
        let mut texts: Vec<String> = texts
            .iter()
            .map(|t| strings::encode_json_text(t, escapes))
            .collect();
        texts.sort();
        texts.dedup();
        Ok(alternation(texts))
    }

    /// Whitespace between tokens inside containers.
    pub(crate) fn ws(&self) -> Ws {
        Ws(self.config.get_whitespace())
    }

    /// Any JSON value nested at most `depth` more levels (more where a combination
    /// needs it: `any_floor`).
    pub(crate) fn any_value(&mut self, level: usize, depth: usize) -> String {
        let depth = depth.max((self.any_floor + 1).saturating_sub(level));
        self.any_reach = self.any_reach.min(level + depth);
        if depth > 0 {
            self.incomplete.push((Some(level), FREE_ORDER.into()));
        }
        // Strings and nested values are calls, so the text stays linear in `depth`.
        let string = format!("\"(?:{})*\"", strings::any_char(self.config.get_escapes()));
        let string = self.automata.call(string, "");
        let mut alts = vec![
            "null".to_string(),
            "(?:true|false)".to_string(),
            string.clone(),
            self.number_any().to_string(),
        ];
        if depth > 0 {
            let inner = self.any_value(level + 1, depth - 1);
            let inner = self.automata.call(inner, "");
            let ws = self.ws();
            let key = string;
            let member = format!("{key}{}{inner}", ws.colon());
            let members = format!("{member}(?:{}{member})*", ws.sep(level));
            alts.extend(ws.container("\\{", "\\}", Some(&members), true, level));
            let items = format!("{inner}(?:{}{inner})*", ws.sep(level));
            alts.extend(ws.container("\\[", "\\]", Some(&items), true, level));
        }
        format!("(?:{})", alts.join("|"))
    }
}

/// Any JSON number; exponents have at most two digits so that every number parses as a
/// finite double in common parsers.
pub(crate) const NUMBER: &str = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]{1,2})?";

/// Numbers spelled one way per value: integers without `-0`, fraction or exponent,
/// others without exponent or trailing zeros. The numbers of the universe of `not`.
pub(crate) const CANONICAL_NUMBER: &str = "(?:0|-?[1-9][0-9]*|-?(?:0|[1-9][0-9]*)\\.[0-9]*[1-9])";

/// JSON texts whose numbers (outside strings) are all canonical, in any whitespace: the
/// minuend of a difference is cut to these, so that a value's other spellings (`1.0`,
/// `1e0`), which the subtrahend's languages need not list, cannot survive it.
pub(crate) fn canonical_texts() -> String {
    let other = "[ \\t\\n\\r{}\\[\\],:]|true|false|null|\"(?:[^\"\\\\]|\\\\.)*\"";
    format!("(?:{other}|{CANONICAL_NUMBER}(?:{other}))*{CANONICAL_NUMBER}?")
}

impl Translator<'_> {
    /// The regex of any number in the current mode.
    pub(crate) fn number_any(&self) -> &'static str {
        if self.canonical_numbers {
            CANONICAL_NUMBER
        } else {
            NUMBER
        }
    }
}

/// Whether a listed value has no other spelling in the universe of `not` (scalars: their
/// numbers are written canonically; containers have whitespace and order variants).
fn canonical_value(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// Whitespace of one style, as regex text.
#[derive(Clone, Copy)]
pub(crate) struct Ws(Whitespace);

impl Ws {
    fn run(self) -> String {
        match self.0 {
            Whitespace::Flexible { max_whitespace } if max_whitespace > 0 => {
                format!("[ \\t\\n\\r]{{0,{max_whitespace}}}")
            }
            _ => String::new(),
        }
    }

    fn newline(indent: usize, level: usize) -> String {
        format!("\\n{}", " ".repeat(indent * level))
    }

    /// Between a key and its value.
    pub(crate) fn colon(self) -> String {
        match self.0 {
            Whitespace::Compact => ":".into(),
            Whitespace::Flexible { .. } => format!("{0}:{0}", self.run()),
            Whitespace::Pretty { .. } => ": ".into(),
        }
    }

    /// Between two members of a container at `level`.
    pub(crate) fn sep(self, level: usize) -> String {
        match self.0 {
            Whitespace::Compact => ",".into(),
            Whitespace::Flexible { .. } => format!("{0},{0}", self.run()),
            Whitespace::Pretty { indent } => format!(",{}", Ws::newline(indent, level + 1)),
        }
    }

    /// A container at `level` with the given brackets: `body` (non-empty members, if
    /// any), or nothing inside when `empty` allows it.
    pub(crate) fn container(
        self,
        open: &str,
        close: &str,
        body: Option<&str>,
        empty: bool,
        level: usize,
    ) -> Lang {
        let (first, last) = match self.0 {
            Whitespace::Compact => (String::new(), String::new()),
            Whitespace::Flexible { .. } => (self.run(), self.run()),
            Whitespace::Pretty { indent } => {
                (Ws::newline(indent, level + 1), Ws::newline(indent, level))
            }
        };
        let mut alts = Vec::new();
        if let Some(body) = body {
            alts.push(format!("{first}{body}{last}"));
        }
        if empty {
            alts.push(self.run());
        }
        alternation(alts).map(|inside| format!("{open}{inside}{close}"))
    }
}

/// JSON Schema's instance types (`integer` last: `number` covers it).
pub(crate) const ALL_TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Whether a value of type `t` is among `types` (as [`types`] lists them).
pub(crate) fn type_allows(types: &[&str], t: &str) -> bool {
    types.contains(&t) || (t == "integer" && types.contains(&"number"))
}

/// The instance types a schema allows (`number` covers `integer`).
pub(crate) fn types(
    map: &Map<String, Value>,
    pointer: &str,
) -> Result<Vec<&'static str>, JsonSchemaError> {
    const ALL: [&str; 7] = ALL_TYPES;
    let names: Vec<&Value> = match map.get("type") {
        None => return Ok(ALL[..6].to_vec()),
        Some(Value::Array(names)) => names.iter().collect(),
        Some(name) => vec![name],
    };
    let mut out = Vec::new();
    for name in names {
        let found = name.as_str().and_then(|n| ALL.iter().find(|a| **a == n));
        match found {
            Some(t) if !out.contains(t) => out.push(*t),
            Some(_) => {}
            None => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "type",
                    format!("{name} is not a JSON Schema type"),
                ))
            }
        }
    }
    if out.contains(&"number") {
        out.retain(|t| *t != "integer");
    }
    Ok(out)
}

pub(crate) fn schema_array<'v>(
    value: &'v Value,
    pointer: &str,
    keyword: &str,
) -> Result<&'v [Value], JsonSchemaError> {
    match value {
        Value::Array(items) if !items.is_empty() => Ok(items),
        _ => Err(JsonSchemaError::at(
            pointer,
            keyword,
            "must be a non-empty array of schemas",
        )),
    }
}

/// Whether a schema admits everything and constrains nothing (`true`, `{}`, annotations).
pub(crate) fn is_trivial(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Object(map) => is_trivial_map(map),
        _ => false,
    }
}

/// Whether a schema object admits everything and constrains nothing (`{}`, annotations).
pub(crate) fn is_trivial_map(map: &Map<String, Value>) -> bool {
    map.keys()
        .all(|k| ANNOTATIONS.contains(&k.as_str()) || !is_keyword(k))
}

/// Whether `k` is a keyword this translator knows (others are ignored, as the spec says).
pub(crate) fn is_keyword(k: &str) -> bool {
    ASSERTIONS.contains(&k)
        || REFUSED.iter().any(|(r, _)| *r == k)
        || ["$ref", "allOf", "anyOf", "oneOf", "not", "if"].contains(&k)
}

/// The JSON pointer a local `$ref` target names, with the document's `$anchor`s.
pub(crate) fn resolve_in(anchors: &HashMap<String, String>, target: &str) -> Option<String> {
    if target == "#" {
        Some(String::new())
    } else if let Some(p) = target.strip_prefix("#/") {
        Some(format!("/{}", crate::uri::percent_decode(p)))
    } else if let Some(name) = target.strip_prefix('#') {
        anchors.get(name).cloned()
    } else {
        None
    }
}

/// The JSON Schema type of `value` (`number` for every number).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::KEYWORDS;

    /// Every keyword the translator reads has a shape, except those that hold any value.
    #[test]
    fn every_keyword_read_has_a_shape() {
        let applicators = ["$ref", "allOf", "anyOf", "oneOf", "not", "if"];
        let read = ASSERTIONS
            .iter()
            .chain(ANNOTATIONS)
            .chain(REFUSED.iter().map(|r| &r.0))
            .chain(&applicators);
        for keyword in read {
            let has = KEYWORDS.iter().any(|(k, _)| k == keyword);
            assert_eq!(has, !["const", "default"].contains(keyword), "{keyword}");
        }
    }
}
