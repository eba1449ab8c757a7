//! Constraints on which properties an object has, written as a union of objects instead of
//! intersections with the whole object's language.
//!
//! Real-world schemas say "`a` needs `b`" (`dependentRequired`, array `dependencies`),
//! "exactly one of these keys" (`oneOf` of `required`), "not both" (`not: {required}`),
//! and combinations of these. Translated as parts, each is an automaton of every object,
//! intersected with the object's own automaton, whose states are the product of every
//! member's value: the cost grows with the whole object (and, through recursion, with
//! every level below it), for a constraint that only looks at which names are present.
//!
//! Here such keywords are read as one boolean formula over the presence of names
//! ([`Presence`]), and the formula is split by Shannon expansion over its names into
//! disjoint partial assignments ("these present, those absent, the rest free"). Each
//! assignment is the object itself with those names required and the absent ones
//! forbidden (`properties: {x: false}`); the objects exclude each other (two assignments
//! differ on some name), their union is the formula's models, and no automaton operation
//! is needed: the members' values stay what they are, called or written once each.

use std::collections::HashMap;

use serde_json::{Map, Value};

use serde_json::json;

use crate::error::{child, JsonSchemaError};
use crate::fold::reference_to;
use crate::lang::{alternation, Lang};
use crate::schema::{is_keyword, types, Translator, ANNOTATIONS, DEPENDENCIES};

/// At most this many objects in a union: past it the keywords stay parts (intersected).
const MAX_ALTERNATIVES: usize = 64;

/// Keywords that combine sub-schemas, read as a formula when every sub-schema is one.
const COMBINATORS: [&str; 4] = ["allOf", "anyOf", "oneOf", "not"];

/// A formula over which properties an object has and which of given schemas their values
/// satisfy.
#[derive(Clone, Debug)]
enum Presence {
    Has(String),
    /// Atom `k` ([`Atom`]): its property is absent or its value satisfies its schema.
    Is(usize),
    Not(Box<Presence>),
    /// Every one holds (`All(vec![])`: true).
    All(Vec<Presence>),
    /// Some one holds (`Any(vec![])`: false).
    Any(Vec<Presence>),
    /// Exactly one holds.
    One(Vec<Presence>),
}

impl Presence {
    /// The formula's value where `known` decides its variables, `None` where it does not.
    fn eval(&self, known: &HashMap<Var, bool>, atoms: &[Atom]) -> Option<bool> {
        match self {
            Presence::Has(name) => known.get(&Var::Has(name.clone())).copied(),
            Presence::Is(k) => match known.get(&Var::Is(*k)) {
                Some(holds) => Some(*holds),
                None => known
                    .get(&Var::Has(atoms[*k].name.clone()))
                    .and_then(|has| (!has).then_some(true)),
            },
            Presence::Not(f) => f.eval(known, atoms).map(|v| !v),
            Presence::All(fs) => {
                let values: Vec<_> = fs.iter().map(|f| f.eval(known, atoms)).collect();
                match values.contains(&Some(false)) {
                    true => Some(false),
                    false => values.iter().all(Option::is_some).then_some(true),
                }
            }
            Presence::Any(fs) => {
                let values: Vec<_> = fs.iter().map(|f| f.eval(known, atoms)).collect();
                match values.contains(&Some(true)) {
                    true => Some(true),
                    false => values.iter().all(Option::is_some).then_some(false),
                }
            }
            Presence::One(fs) => {
                let values: Vec<_> = fs.iter().map(|f| f.eval(known, atoms)).collect();
                let holding = values.iter().filter(|v| **v == Some(true)).count();
                match (holding, values.contains(&None)) {
                    (2.., _) => Some(false),
                    (_, false) => Some(holding == 1),
                    _ => None,
                }
            }
        }
    }

    /// The names the formula mentions, first mention first, appended to `out`.
    fn names(&self, atoms: &[Atom], out: &mut Vec<String>) {
        let name = match self {
            Presence::Has(name) => name,
            Presence::Is(k) => &atoms[*k].name,
            Presence::Not(f) => return f.names(atoms, out),
            Presence::All(fs) | Presence::Any(fs) | Presence::One(fs) => {
                return fs.iter().for_each(|f| f.names(atoms, out));
            }
        };
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
}

/// What a formula is split on: whether a name is present, whether an atom holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Var {
    Has(String),
    Is(usize),
}

/// `properties: {name: schema}` inside a formula: the schema is applied to the member
/// alone, as itself or its negation, never intersected with the whole object.
struct Atom<'v> {
    name: String,
    /// Where the schema stands (it enters an alternative as a `$ref` there).
    at: String,
    schema: &'v Value,
}

/// Reads formulas, collecting their atoms.
struct Reader<'v, 'r> {
    atoms: Vec<Atom<'v>>,
    /// A local `$ref`'s target: its pointer and schema.
    resolve: &'r dyn Fn(&str) -> Option<(String, &'v Value)>,
}

impl<'v> Reader<'v, '_> {
    /// `schema` (at `at`) read as a formula on objects, or `None` when it says more than
    /// which names are present and what their values satisfy (`type: object` says
    /// nothing on an object; unknown keywords and annotations are ignored, as the spec
    /// says).
    fn formula(&mut self, schema: &'v Value, at: &str, depth: usize) -> Option<Presence> {
        let map = match schema {
            Value::Bool(true) => return Some(Presence::All(Vec::new())),
            Value::Bool(false) => return Some(Presence::Any(Vec::new())),
            Value::Object(map) if depth < 8 => map,
            _ => return None,
        };
        let mut all = Vec::new();
        for (k, v) in map {
            match k.as_str() {
                k if ANNOTATIONS.contains(&k) || !is_keyword(k) => {}
                // Without `if` they say nothing; with it, they are read with it.
                "then" | "else" => {}
                "if" => all.push(self.conditional(map, at, depth)?),
                "$ref" => {
                    let (target, schema) = (self.resolve)(v.as_str()?)?;
                    all.push(self.formula(schema, &target, depth + 1)?);
                }
                _ => all.push(self.keyword(k, v, &child(at, k), depth)?),
            }
        }
        Some(Presence::All(all))
    }

    /// The formula of keyword `k` with value `v` (at `at`), or `None`.
    fn keyword(&mut self, k: &str, v: &'v Value, at: &str, depth: usize) -> Option<Presence> {
        let mut all = Vec::new();
        match k {
            "type" if matches!(v.as_str(), Some("object")) => {}
            "properties" => {
                for (name, schema) in v.as_object()? {
                    if !crate::schema::is_trivial(schema) {
                        all.push(Presence::Is(self.atom(name, &child(at, name), schema)));
                    }
                }
            }
            "required" => {
                for name in v.as_array()? {
                    all.push(Presence::Has(name.as_str()?.to_string()));
                }
            }
            "not" => all.push(Presence::Not(Box::new(self.formula(v, at, depth + 1)?))),
            "allOf" | "anyOf" | "oneOf" => {
                let mut fs = Vec::new();
                for (i, b) in v.as_array()?.iter().enumerate() {
                    fs.push(self.formula(b, &child(at, &i.to_string()), depth + 1)?);
                }
                all.push(match k {
                    "allOf" => Presence::All(fs),
                    "anyOf" => Presence::Any(fs),
                    _ => Presence::One(fs),
                });
            }
            _ => return None,
        }
        Some(Presence::All(all))
    }

    /// The index of the atom "`name` absent or its value satisfies `schema`", one for
    /// equal schemas of a name.
    fn atom(&mut self, name: &str, at: &str, schema: &'v Value) -> usize {
        let same = |a: &Atom| a.name == name && a.schema == schema;
        self.atoms.iter().position(same).unwrap_or_else(|| {
            let (name, at) = (name.to_string(), at.to_string());
            self.atoms.push(Atom { name, at, schema });
            self.atoms.len() - 1
        })
    }

    /// A dependency's formula: `name` absent, or present with what it needs.
    fn dependency(
        &mut self,
        keyword: &str,
        name: &str,
        dep: &'v Value,
        at: &str,
    ) -> Option<Presence> {
        let needs = match dep {
            Value::Array(names) if keyword != "dependentSchemas" => Presence::All(
                names
                    .iter()
                    .map(|n| Some(Presence::Has(n.as_str()?.to_string())))
                    .collect::<Option<_>>()?,
            ),
            Value::Object(_) | Value::Bool(_) if keyword != "dependentRequired" => {
                self.formula(dep, at, 0)?
            }
            _ => return None,
        };
        let has = Presence::Has(name.to_string());
        Some(Presence::Any(vec![
            Presence::Not(Box::new(has.clone())),
            Presence::All(vec![has, needs]),
        ]))
    }

    /// `if`/`then`/`else` of `map` as `(if ∧ then) ∨ (¬if ∧ else)`, absent branches true.
    fn conditional(
        &mut self,
        map: &'v Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Option<Presence> {
        let condition = self.formula(map.get("if")?, &child(at, "if"), depth + 1)?;
        let mut branch = |k: &str| match map.get(k) {
            Some(b) => self.formula(b, &child(at, k), depth + 1),
            None => Some(Presence::All(Vec::new())),
        };
        let (then, otherwise) = (branch("then")?, branch("else")?);
        let not = Presence::Not(Box::new(condition.clone()));
        Some(Presence::Any(vec![
            Presence::All(vec![condition, then]),
            Presence::All(vec![not, otherwise]),
        ]))
    }

    /// `read`, with the atoms it added dropped when it is `None`.
    fn or_undo(&mut self, read: impl FnOnce(&mut Self) -> Option<Presence>) -> Option<Presence> {
        let before = self.atoms.len();
        let f = read(self);
        if f.is_none() {
            self.atoms.truncate(before);
        }
        f
    }

    /// The formulas among the keywords of `map` (at `pointer`) and `map` without those
    /// keywords; `None` where there are none.
    fn split(
        &mut self,
        map: &'v Map<String, Value>,
        pointer: &str,
    ) -> Option<(Presence, Map<String, Value>)> {
        let keywords = COMBINATORS.iter().chain(DEPENDENCIES).chain(&["if"]);
        if !keywords.into_iter().any(|k| map.contains_key(*k)) {
            return None;
        }
        let (mut rest, mut all) = (map.clone(), Vec::new());
        for k in COMBINATORS {
            let Some(v) = map.get(k) else { continue };
            let at = child(pointer, k);
            if let Some(f) = self.or_undo(|r| r.keyword(k, v, &at, 0)) {
                all.push(f);
                rest.remove(k);
            }
        }
        if let Some(f) = self.or_undo(|r| r.conditional(map, pointer, 0)) {
            all.push(f);
            for k in ["if", "then", "else"] {
                rest.remove(k);
            }
        }
        for keyword in DEPENDENCIES {
            let Some(Value::Object(deps)) = map.get(*keyword) else {
                continue;
            };
            let (here, mut left) = (child(pointer, keyword), Map::new());
            for (name, dep) in deps {
                let at = child(&here, name);
                match self.or_undo(|r| r.dependency(keyword, name, dep, &at)) {
                    Some(f) => all.push(f),
                    None => {
                        left.insert(name.clone(), dep.clone());
                    }
                }
            }
            match left.is_empty() {
                true => rest.remove(*keyword),
                false => rest.insert(keyword.to_string(), Value::Object(left)),
            };
        }
        (!all.is_empty()).then_some((Presence::All(all), rest))
    }
}

/// What `map` itself says of `names`: required ones present, forbidden ones absent.
fn known_from(map: &Map<String, Value>, names: &[String], closed: bool) -> HashMap<Var, bool> {
    let properties = map.get("properties").and_then(Value::as_object);
    let required = |n: &String| matches!(map.get("required"), Some(Value::Array(r)) if r.iter().any(|x| x == n));
    let mut known = HashMap::new();
    for name in names {
        let schema = properties.and_then(|p| p.get(name));
        let absent = matches!(schema, Some(Value::Bool(false)))
            || (schema.is_none() && closed && !map.contains_key("patternProperties"));
        match (required(name), absent) {
            (true, _) => known.insert(Var::Has(name.clone()), true),
            (false, true) => known.insert(Var::Has(name.clone()), false),
            _ => None,
        };
    }
    known
}

/// The assignments under which `f` holds, split on `vars` in order: disjoint, each
/// deciding only the variables it needed (an atom only where its name is present).
/// `false` past `MAX_ALTERNATIVES`.
fn models(
    f: &Presence,
    atoms: &[Atom],
    vars: &[Var],
    known: &mut HashMap<Var, bool>,
    out: &mut Vec<HashMap<Var, bool>>,
) -> bool {
    match f.eval(known, atoms) {
        Some(true) => {
            out.push(known.clone());
            out.len() <= MAX_ALTERNATIVES
        }
        Some(false) => true,
        None => {
            let open = |v: &&Var| match v {
                Var::Has(_) => !known.contains_key(*v),
                Var::Is(k) => {
                    let has = known.get(&Var::Has(atoms[*k].name.clone()));
                    has != Some(&false) && !known.contains_key(*v)
                }
            };
            let var = vars
                .iter()
                .find(open)
                .expect("decided once its variables are")
                .clone();
            let mut ok = true;
            for value in [true, false] {
                known.insert(var.clone(), value);
                // An atom that fails has its property present.
                let implied = match &var {
                    Var::Is(k) if !value => Some(Var::Has(atoms[*k].name.clone())),
                    _ => None,
                }
                .filter(|has| !known.contains_key(has));
                if let Some(has) = &implied {
                    known.insert(has.clone(), true);
                }
                ok = ok && models(f, atoms, vars, known, out);
                if let Some(has) = implied {
                    known.remove(&has);
                }
            }
            known.remove(&var);
            ok
        }
    }
}

/// The variables of a formula in the order it is split on, by `names`: each name's atoms
/// (what a value satisfies is often all a formula asks, absent or not), then its presence.
fn variables(names: &[String], atoms: &[Atom]) -> Vec<Var> {
    let mut vars = Vec::new();
    for name in names {
        let mine = (0..atoms.len()).filter(|k| atoms[*k].name == *name);
        vars.extend(mine.map(Var::Is));
        vars.push(Var::Has(name.clone()));
    }
    vars
}

/// Each atom's name and schema, and each named property's own schema, as they enter an
/// alternative (a `$ref` to where they stand: see [`Translator::stand_in`]).
struct StandIns {
    atoms: Vec<(String, Value)>,
    own: HashMap<String, Value>,
}

/// `rest` as `model` says: the names it makes present required, the absent ones forbidden
/// (those `base` decides are as `rest` says), and each property's value held to the atoms
/// the model decides for it.
fn alternative(
    rest: &Map<String, Value>,
    model: &HashMap<Var, bool>,
    base: &HashMap<Var, bool>,
    names: &[String],
    stand_ins: &StandIns,
) -> Map<String, Value> {
    let mut out = rest.clone();
    let mut required: Vec<Value> = match out.remove("required") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    let mut values = Map::new();
    for name in names {
        let has = Var::Has(name.clone());
        match (model.get(&has), base.contains_key(&has)) {
            (Some(false), false) => {
                values.insert(name.clone(), Value::Bool(false));
                continue;
            }
            (Some(true), false) if !required.iter().any(|r| r == name) => {
                required.push(name.as_str().into())
            }
            _ => {}
        }
        let mut parts: Vec<Value> = stand_ins.own.get(name).into_iter().cloned().collect();
        for (k, (atom_name, schema)) in stand_ins.atoms.iter().enumerate() {
            match model.get(&Var::Is(k)) {
                Some(true) if atom_name == name => parts.push(schema.clone()),
                Some(false) if atom_name == name => parts.push(json!({ "not": schema })),
                _ => {}
            }
        }
        if parts.len() > stand_ins.own.contains_key(name) as usize {
            values.insert(name.clone(), json!({ "allOf": parts }));
        }
    }
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    if !values.is_empty() {
        let properties = out.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(properties) = properties {
            properties.extend(values);
        }
    }
    out
}

impl Translator<'_> {
    /// The language of object schema `map` with its presence constraints as a union of
    /// objects (see the module docs), or `None` where the rewrite does not apply: not an
    /// object-only schema, no such constraint, a schema that cannot be named where it
    /// stands, or too many objects.
    #[inline(never)]
    pub(crate) fn presence_union(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Option<Lang>, JsonSchemaError> {
        let well_typed = !matches!(map.get("required"), Some(r) if !r.is_array())
            && !matches!(map.get("properties"), Some(p) if !p.is_object());
        if !well_typed || types(map, pointer).ok().as_deref() != Some(&["object"][..]) {
            return Ok(None);
        }
        let resolve = |r: &str| {
            let target = self.resolve(r)?;
            Some((target.clone(), self.at(&target)?))
        };
        let mut reader = Reader {
            atoms: Vec::new(),
            resolve: &resolve,
        };
        let Some((f, rest)) = reader.split(map, pointer) else {
            return Ok(None);
        };
        let atoms = reader.atoms;
        let mut names: Vec<String> = Vec::new();
        if let Some(Value::Object(p)) = map.get("properties") {
            names.extend(p.keys().cloned());
        }
        let mut mentioned = Vec::new();
        f.names(&atoms, &mut mentioned);
        names.retain(|n| mentioned.contains(n));
        mentioned.retain(|n| !names.contains(n));
        names.extend(mentioned);
        let closed = match map.get("additionalProperties") {
            Some(v) => matches!(v, Value::Bool(false)),
            None => !self.config.get_additional_properties(),
        };
        let base = known_from(map, &names, closed);
        let Some(stand_ins) = self.stand_ins(map, pointer, &atoms, &names, &base) else {
            return Ok(None);
        };
        let vars = variables(&names, &atoms);
        let mut out = Vec::new();
        if !models(&f, &atoms, &vars, &mut base.clone(), &mut out) {
            return Ok(None);
        }
        let records = (self.incomplete.len(), self.cuts.len());
        let mut langs = Vec::with_capacity(out.len());
        for model in &out {
            let alternative = alternative(&rest, model, &base, &names, &stand_ins);
            if let Some(lang) = self.combined(&alternative, pointer, level)? {
                langs.push(lang);
            }
        }
        self.drop_repeated_records(records.0, records.1);
        Ok(Some(alternation(langs)))
    }

    /// The stand-ins of the atoms and of the named properties' own schemas that an atom
    /// joins, or `None` where one cannot be named.
    fn stand_ins(
        &self,
        map: &Map<String, Value>,
        pointer: &str,
        atoms: &[Atom],
        names: &[String],
        base: &HashMap<Var, bool>,
    ) -> Option<StandIns> {
        let mut out = StandIns {
            atoms: Vec::new(),
            own: HashMap::new(),
        };
        for atom in atoms {
            out.atoms
                .push((atom.name.clone(), self.stand_in(&atom.at, atom.schema)?));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let here = child(pointer, "properties");
        let open = match map.get("additionalProperties") {
            Some(v) => crate::schema::is_trivial(v),
            None => self.config.get_additional_properties(),
        };
        for name in names.iter().filter(|n| atoms.iter().any(|a| a.name == **n)) {
            match properties.and_then(|p| p.get(name)) {
                Some(s) if !crate::schema::is_trivial(s) => {
                    out.own
                        .insert(name.clone(), self.stand_in(&child(&here, name), s)?);
                }
                Some(_) => {}
                // Named in `properties`, `additionalProperties` would no longer apply to it
                // (unless it cannot be there at all).
                None if !open && base.get(&Var::Has(name.clone())) != Some(&false) => return None,
                None => {}
            }
        }
        Some(out)
    }

    /// `schema` as it enters another schema: a `$ref` to `at` when it stands there (so
    /// its own `$ref`s, errors and number texts keep their places), or itself when it is
    /// only a `$ref`; `None` otherwise (a schema a fold moved).
    fn stand_in(&self, at: &str, schema: &Value) -> Option<Value> {
        if self
            .root
            .pointer(at)
            .is_some_and(|v| std::ptr::eq(v, schema))
        {
            return Some(reference_to(at));
        }
        let only_ref = schema
            .as_object()
            .is_some_and(|m| m.len() == 1 && m.contains_key("$ref"));
        only_ref.then(|| schema.clone())
    }
}
