//! `$ref` targets by URI. A `$ref` is a URI reference read against the base URI its schema
//! is in (set by the nearest `$id` around it, RFC 3986); it names a schema resource (the
//! document or a schema with an `$id`) and, in its fragment, a JSON pointer inside that
//! resource or one of its anchors. The translator follows plain JSON pointers into one
//! document, so before it runs, every `$ref` whose target differs from what its text reads
//! as in the root document is rewritten as the target's pointer, and documents read from
//! the reference folder ([`Config::ref_dir`]) are placed in the root under [`REMOTE`].
//! Schemas that need none of this (the common case) are not copied. The same pass rewrites
//! `unevaluated*` keywords where that is exact (`crate::unevaluated`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Map, Value};

use crate::config::Config;
use crate::decimal::NumberTexts;
use crate::error::{child, JsonSchemaError};
use crate::fold::fragment_of;
use crate::schema::resolve_in;
use crate::shape::sub_schemas;
use crate::unevaluated::rewrite_document;
use crate::uri::{path, percent_decode, resolve, without_fragment};

/// The member of the bundled root that holds the documents read from the reference folder,
/// by their URIs.
pub(crate) const REMOTE: &str = "$fstc-remote";

/// The base URI of a root schema without `$id`: relative references then name files of the
/// reference folder by their paths.
const DEFAULT_BASE: &str = "file:///";

/// Most documents read from the reference folder for one schema.
const MAX_DOCUMENTS: usize = 1000;

/// A schema with every `$ref` a JSON pointer into it, as the translator reads them.
pub(crate) struct Bundled<'v> {
    pub(crate) value: Cow<'v, Value>,
    pub(crate) numbers: Cow<'v, NumberTexts>,
    /// The root resource's anchors (name → pointer), for the `$ref`s left as written.
    pub(crate) anchors: HashMap<String, String>,
}

/// `root` (whose numbers have the texts `numbers`) with its references resolved by URI.
pub(crate) fn bundle<'v>(
    root: &'v Value,
    numbers: &'v NumberTexts,
    config: &Config,
) -> Result<Bundled<'v>, JsonSchemaError> {
    let mut index = Index::new(root);
    let mut targets = Vec::new();
    while targets.len() < index.refs.len() {
        let r = index.refs[targets.len()].clone();
        match index.target(root, &r)? {
            Some(pointer) => {
                index.walk_target(root, &r, &pointer);
                targets.push(pointer);
            }
            None => index.read(&r, config)?,
        }
    }
    let anchors = index.root_anchors();
    let rewrites: Vec<(&Ref, &String)> = index
        .refs
        .iter()
        .zip(&targets)
        .filter(|(r, target)| resolve_in(&anchors, &r.target).as_ref() != Some(*target))
        .collect();
    // Copied only when something is placed or rewritten (the common schema is neither).
    let mut value = Cow::Borrowed(root);
    let mut numbers = Cow::Borrowed(numbers);
    if !index.remote.is_empty() {
        let mut remote = Map::new();
        for document in index.remote {
            numbers.to_mut().embed(&document.prefix, document.numbers);
            remote.insert(document.uri, document.value);
        }
        if let Value::Object(map) = value.to_mut() {
            map.insert(REMOTE.into(), Value::Object(remote));
        }
    }
    for (r, target) in rewrites {
        let schema = value
            .to_mut()
            .pointer_mut(&r.at)
            .and_then(Value::as_object_mut);
        let schema = schema.expect("a `$ref` was found in an object at this pointer");
        schema.insert("$ref".into(), Value::String(fragment_of(target)));
    }
    rewrite_document(&mut value, &anchors, &index.unevaluated);
    Ok(Bundled {
        value,
        numbers,
        anchors,
    })
}

/// A `$ref`: the pointer of its schema, its text and the base URI it is read against.
#[derive(Clone)]
struct Ref {
    at: String,
    target: String,
    base: String,
}

/// A document read from the reference folder.
struct Document {
    uri: String,
    /// Its pointer in the bundle.
    prefix: String,
    value: Value,
    numbers: NumberTexts,
}

/// The schema resources, anchors and references of the root and the documents read.
struct Index {
    /// Absolute URI (without fragment) → the resource's pointer in the bundle.
    resources: HashMap<String, String>,
    /// (resource URI, name) → the anchored schema's pointer.
    anchors: HashMap<(String, String), String>,
    refs: Vec<Ref>,
    /// Pointers of the schemas with `unevaluatedProperties` or `unevaluatedItems`.
    unevaluated: Vec<String>,
    /// Hashes of the pointers of the schema objects walked.
    walked: HashSet<u64>,
    remote: Vec<Document>,
    root_base: String,
    /// `id` in drafts 3 and 4, `$id` after.
    id_keyword: &'static str,
}

impl Index {
    fn new(root: &Value) -> Index {
        let draft4 = root
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("draft-04") || s.contains("draft-03"));
        let mut index = Index {
            resources: HashMap::new(),
            anchors: HashMap::new(),
            refs: Vec::new(),
            unevaluated: Vec::new(),
            walked: HashSet::new(),
            remote: Vec::new(),
            root_base: DEFAULT_BASE.into(),
            id_keyword: if draft4 { "id" } else { "$id" },
        };
        index.resources.insert(DEFAULT_BASE.into(), String::new());
        index.root_base = index.walk(root, String::new(), DEFAULT_BASE.into());
        index
    }

    /// Indexes the schemas of `value` at `pointer`, read against `base`; returns the base
    /// inside `value` itself (its `$id` resolved).
    fn walk(&mut self, value: &Value, pointer: String, base: String) -> String {
        let mut own_base: Option<Rc<str>> = None;
        let mut stack = vec![(value, pointer, Rc::<str>::from(base))];
        while let Some((value, pointer, mut base)) = stack.pop() {
            let Value::Object(map) = value else {
                own_base.get_or_insert_with(|| Rc::clone(&base));
                continue;
            };
            if !self.walked.insert(hash_of(&pointer)) {
                continue;
            }
            if map.contains_key("unevaluatedProperties") || map.contains_key("unevaluatedItems") {
                self.unevaluated.push(pointer.clone());
            }
            if let Some(Value::String(id)) = map.get(self.id_keyword) {
                match id.strip_prefix('#') {
                    // Drafts 6 and 7 spell an anchor `"$id": "#name"`.
                    Some(name) => self.anchor(&base, name, &pointer),
                    None => {
                        base = without_fragment(&resolve(&base, id)).0.into();
                        self.resources
                            .entry(base.to_string())
                            .or_insert_with(|| pointer.clone());
                    }
                }
            }
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = map.get(keyword) {
                    self.anchor(&base, name, &pointer);
                }
            }
            if let Some(Value::String(target)) = map.get("$ref") {
                let (at, target, base) = (pointer.clone(), target.clone(), base.to_string());
                self.refs.push(Ref { at, target, base });
            }
            own_base.get_or_insert_with(|| Rc::clone(&base));
            let subs = sub_schemas(map, &pointer);
            stack.extend(
                subs.into_iter()
                    .rev()
                    .map(|(v, at)| (v, at, Rc::clone(&base))),
            );
        }
        own_base.map(|b| b.to_string()).unwrap_or_default()
    }

    /// Indexes the schema a `$ref` names where the walk did not reach it (a schema that
    /// stands inside an unknown keyword, `$defs: {group: {name: schema}}`): its `$ref`s and
    /// `unevaluated*` keywords are then found too.
    fn walk_target(&mut self, root: &Value, r: &Ref, pointer: &str) {
        if self.walked.contains(&hash_of(pointer)) {
            return;
        }
        if let Some(value) = self.lookup(root, pointer).cloned() {
            let uri = resolve(&r.base, &r.target);
            let base = without_fragment(&uri).0.to_string();
            self.walk(&value, pointer.to_string(), base);
        }
    }

    /// Records an anchor; the first of a name in a resource wins.
    fn anchor(&mut self, base: &str, name: &str, pointer: &str) {
        if !name.is_empty() {
            self.anchors
                .entry((base.to_string(), name.to_string()))
                .or_insert_with(|| pointer.to_string());
        }
    }

    /// The anchors of the root resource, by name.
    fn root_anchors(&self) -> HashMap<String, String> {
        let root = [DEFAULT_BASE, self.root_base.as_str()];
        let mut out = HashMap::new();
        for ((resource, name), pointer) in &self.anchors {
            if root.contains(&resource.as_str()) && pointer_in_root(pointer) {
                out.entry(name.clone()).or_insert_with(|| pointer.clone());
            }
        }
        out
    }

    /// The pointer `r` names in the bundle; `None` when it names a document not read yet.
    fn target(&self, root: &Value, r: &Ref) -> Result<Option<String>, JsonSchemaError> {
        let uri = resolve(&r.base, &r.target);
        let (document, fragment) = without_fragment(&uri);
        let Some(resource) = self.resources.get(document) else {
            return Ok(None);
        };
        let fragment = percent_decode(fragment);
        let pointer = if fragment.is_empty() || fragment.starts_with('/') {
            format!("{resource}{fragment}")
        } else {
            let key = (document.to_string(), fragment.clone());
            match self.anchors.get(&key) {
                Some(pointer) => pointer.clone(),
                None => {
                    let why = format!(
                        "`{}` names no anchor `{fragment}` in `{document}`",
                        r.target
                    );
                    return Err(JsonSchemaError::at(&r.at, "$ref", why));
                }
            }
        };
        if self.lookup(root, &pointer).is_none() {
            let why = format!("`{}` points at nothing (it reads as `{uri}`)", r.target);
            return Err(JsonSchemaError::at(&r.at, "$ref", why));
        }
        Ok(Some(pointer))
    }

    /// The value at the bundle pointer `pointer`.
    fn lookup<'a>(&'a self, root: &'a Value, pointer: &str) -> Option<&'a Value> {
        if pointer_in_root(pointer) {
            return root.pointer(pointer);
        }
        let document = self.remote.iter().find(|d| {
            pointer
                .strip_prefix(&d.prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })?;
        document.value.pointer(&pointer[document.prefix.len()..])
    }

    /// Reads the document `r` names from the reference folder and indexes it.
    fn read(&mut self, r: &Ref, config: &Config) -> Result<(), JsonSchemaError> {
        let uri = without_fragment(&resolve(&r.base, &r.target)).0.to_string();
        let refuse = |why: String| JsonSchemaError::at(&r.at, "$ref", why);
        let named = match r.target.starts_with(&uri) {
            true => format!("`{}` names another document", r.target),
            false => format!("`{}` names another document, `{uri}`", r.target),
        };
        let Some(dir) = config.get_ref_dir() else {
            return Err(refuse(format!(
                "{named}: give the folder of referenced documents (option ref_dir, --ref-dir)"
            )));
        };
        if self.remote.len() >= MAX_DOCUMENTS {
            return Err(refuse(format!(
                "`{}` would read more than {MAX_DOCUMENTS} documents from the reference folder",
                r.target
            )));
        }
        let Some(file) = file_in(dir, &uri) else {
            let why = format!(
                "`{}` names `{uri}`, which names no file in a folder",
                r.target
            );
            return Err(refuse(why));
        };
        let text = read_document(&file, config).map_err(|e| {
            refuse(format!(
                "`{}` names `{uri}`: {}: {e}",
                r.target,
                file.display()
            ))
        })?;
        let (value, numbers) = crate::document::parse(&text, &file.display().to_string())
            .map_err(|e| refuse(format!("`{}` names `{uri}`: {e}", r.target)))?;
        let prefix = child(&child("", REMOTE), &uri);
        crate::shape::check(&value, &prefix)?;
        self.resources.insert(uri.clone(), prefix.clone());
        self.walk(&value, prefix.clone(), uri.clone());
        self.remote.push(Document {
            uri,
            prefix,
            value,
            numbers,
        });
        Ok(())
    }
}

fn hash_of(pointer: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    pointer.hash(&mut hasher);
    hasher.finish()
}

/// Whether a bundle pointer is in the root document rather than a document read.
fn pointer_in_root(pointer: &str) -> bool {
    !pointer.starts_with(&child("", REMOTE))
}

/// The file of `dir` that the URI `uri` names: its absolute path's segments under `dir` (a
/// URN, or a segment that would leave `dir`, names none).
fn file_in(dir: &Path, uri: &str) -> Option<PathBuf> {
    let path = path(uri);
    if !path.starts_with('/') {
        return None;
    }
    let mut file = dir.to_path_buf();
    let mut segments = 0;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = percent_decode(segment);
        if [".", ".."].contains(&segment.as_str()) || segment.contains(['/', '\\', '\0']) {
            return None;
        }
        file.push(segment);
        segments += 1;
    }
    (segments > 0).then_some(file)
}

/// The text of a referenced document, at most the memory budget long.
fn read_document(file: &Path, config: &Config) -> std::io::Result<String> {
    let size = std::fs::metadata(file)?.len();
    if size > config.get_memory_budget() as u64 {
        let why = format!("{size} bytes, past the memory budget");
        return Err(std::io::Error::other(why));
    }
    std::fs::read_to_string(file)
}
