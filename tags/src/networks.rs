//! What the lazy compile of a structural tag keeps for the whole process, by content:
//! each JSON Schema's call network (by schema text and options) and each structure's root
//! machine (by regex text and spliced automata). A server sends the same tools request
//! after request, and translating 128 tool schemas into machines and the root's `begin`
//! alternation into a DFA (a regex parse and a subset construction each) is most of a
//! lazy compile; a later request with the same tools reuses them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use fstc_core::bytes::{ByteDfa, CallNetwork};
use fstc_core::compiled::Compiled;
use fstc_json::{JsonSchemaCompiler, JsonSchemaError};

/// Most networks kept; past it the table starts again (a tool's network is tens of
/// small DFAs).
const MAX_NETWORKS: usize = 1024;

type Networks = HashMap<(String, String), Arc<Compiled<CallNetwork>>>;

/// The call network of `schema` (JSON text) under `json`'s options, translated now or
/// found from an earlier compile with the same text and options. Schemas that read
/// `$ref` files (a `ref_dir` is set) are translated every time: the files may change.
pub(crate) fn schema_network(
    json: &JsonSchemaCompiler,
    schema: &str,
) -> Result<Arc<Compiled<CallNetwork>>, JsonSchemaError> {
    static NETWORKS: OnceLock<Mutex<Networks>> = OnceLock::new();
    let config = json.get_config();
    if config.get_ref_dir().is_some() {
        return json.call_network(schema).map(Arc::new);
    }
    let key = (format!("{config:?}"), schema.to_string());
    let table = NETWORKS.get_or_init(Mutex::default);
    // A poisoned lock only means another thread panicked mid-insert; entries are whole.
    if let Some(found) = table.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(found));
    }
    let network = Arc::new(json.call_network(schema)?);
    let mut networks = table.lock().unwrap_or_else(|e| e.into_inner());
    if networks.len() >= MAX_NETWORKS {
        networks.clear();
    }
    networks.insert(key, Arc::clone(&network));
    Ok(network)
}

/// Most root machines kept (one per distinct structure); past it the table starts again.
const MAX_ROOTS: usize = 256;

/// (state limit, regex text) → the spliced automata and the machine built from them.
type Roots = HashMap<(usize, String), Vec<(Vec<Arc<ByteDfa>>, Arc<ByteDfa>)>>;

/// The root machine of a lowered structure (`regex` over `automata`, built by `build`
/// within `state_limit`), built now or found from an earlier compile of the same text
/// over equal automata: the same tools give the same root, whose 128 `begin` strings
/// and calls are a regex parse and a subset construction.
pub(crate) fn root_machine<E>(
    state_limit: usize,
    regex: &str,
    automata: Vec<Arc<ByteDfa>>,
    build: impl FnOnce(&str, Vec<Arc<ByteDfa>>) -> Result<ByteDfa, E>,
) -> Result<Arc<ByteDfa>, E> {
    static ROOTS: OnceLock<Mutex<Roots>> = OnceLock::new();
    let key = (state_limit, regex.to_string());
    let table = ROOTS.get_or_init(Mutex::default);
    let found = table
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .and_then(|same| {
            same.iter()
                .find(|(a, _)| *a == automata)
                .map(|(_, m)| m.clone())
        });
    if let Some(machine) = found {
        return Ok(machine);
    }
    let machine = Arc::new(build(regex, automata.clone())?);
    let mut roots = table.lock().unwrap_or_else(|e| e.into_inner());
    if roots.len() >= MAX_ROOTS {
        roots.clear();
    }
    let same = roots.entry(key).or_default();
    same.push((automata, Arc::clone(&machine)));
    Ok(machine)
}
