//! A schema's call network for front ends that put it inside a network of their own (a
//! structural tag's tools): the machines [`JsonSchemaCompiler::compile_lazy`] walks,
//! without the vocabulary.

use fstc_core::bytes::CallNetwork;
use fstc_core::compiled::{CompileStats, Compiled};

use crate::compiler::{parse, JsonSchemaCompiler, Translation};
use crate::error::JsonSchemaError;

impl JsonSchemaCompiler {
    /// The call network of the JSON texts `schema` (JSON text) admits: each distinct
    /// sub-schema a byte DFA, its uses calls (`fstc_core::bytes::NetworkBuilder` adds it
    /// to a larger network). Same language, errors and warnings as
    /// [`compile_lazy`](Self::compile_lazy); the state limit bounds each machine.
    pub fn call_network(&self, schema: &str) -> Result<Compiled<CallNetwork>, JsonSchemaError> {
        let mut stats = CompileStats::new();
        let (t, network) = self.translated_network(schema, &mut stats)?;
        Ok(Compiled {
            automaton: network,
            stats,
            warnings: t.warnings,
        })
    }

    /// The translation of `schema` and its call network, each a phase of `stats`.
    pub(crate) fn translated_network(
        &self,
        schema: &str,
        stats: &mut CompileStats,
    ) -> Result<(Translation, CallNetwork), JsonSchemaError> {
        let t = stats.time("schema translation", || {
            let (root, numbers) = parse(schema)?;
            self.translation(&root, &numbers, true)
        })?;
        let network = stats.time("machines", || self.network(&t))?;
        stats.set_count("machines", network.num_machines());
        Ok((t, network))
    }
}
