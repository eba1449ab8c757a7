//! `fstc.Vocabulary`: a tokenizer as exact bytes per token id (`fstc_detok::Vocabulary`).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::fstc_error;
use crate::ints::Int;

/// A tokenizer's vocabulary: the exact bytes of every token id, the special tokens (no
/// text) and the EOS ids. Load with `Vocabulary.from_file`.
#[pyclass(module = "fstc", frozen)]
pub struct Vocabulary {
    pub(crate) inner: Arc<fstc_detok::Vocabulary>,
    /// The vocabulary trie every compile walks, built by the first compile and kept, so
    /// per-request compiles (and every lazy automaton, which holds it) share one.
    trie: OnceLock<Arc<VocabTrie>>,
}

impl Vocabulary {
    /// The shared vocabulary trie, built now if no compile built it before. Call it
    /// without the GIL: building takes tens of milliseconds on a large vocabulary.
    pub(crate) fn trie(&self) -> Arc<VocabTrie> {
        Arc::clone(
            self.trie
                .get_or_init(|| Arc::new(VocabTrie::new(self.inner.as_ref()))),
        )
    }
}

impl Vocabulary {
    /// `value` as a token id of this vocabulary, else `FstcError` naming `name`.
    fn id(&self, value: &Int, name: &str) -> PyResult<u32> {
        let max = (self.inner.len() as u64).saturating_sub(1);
        let id = value.at_most(name, max);
        if self.inner.len() == 0 {
            return Err(crate::errors::fstc_error(format!(
                "argument '{name}': the vocabulary is empty"
            )));
        }
        Ok(id? as u32)
    }
}

#[pymethods]
impl Vocabulary {
    /// Loads a tokenizer file of any format fstc reads, telling the format from the
    /// content: a HuggingFace `tokenizer.json`, a GPT-2 `encoder.json` (with `vocab.bpe`
    /// beside it) or a tiktoken rank file. `eos_ids` replaces the EOS ids found in the file
    /// (they must be special tokens; for tiktoken they may lie past the ranks).
    #[staticmethod]
    #[pyo3(signature = (path, eos_ids = None))]
    fn from_file(py: Python<'_>, path: PathBuf, eos_ids: Option<Vec<Int>>) -> PyResult<Self> {
        let eos_ids = eos_ids
            .map(|ids| {
                ids.iter()
                    .map(|i| i.u32("eos_ids"))
                    .collect::<PyResult<Vec<u32>>>()
            })
            .transpose()?;
        let vocab = py.detach(|| {
            let vocab = fstc_detok::Vocabulary::from_file(&path)?;
            match eos_ids {
                Some(ids) => vocab.with_eos_ids(ids),
                None => Ok(vocab),
            }
        });
        Ok(Vocabulary {
            inner: Arc::new(vocab.map_err(fstc_error)?),
            trie: OnceLock::new(),
        })
    }

    /// Number of token ids, special tokens included.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Number of token ids, special tokens included.
    #[getter]
    fn size(&self) -> usize {
        self.inner.len()
    }

    /// The ids that end generation, sorted.
    #[getter]
    fn eos_ids(&self) -> Vec<u32> {
        self.inner.eos_ids().to_vec()
    }

    /// The 64-bit fingerprint of the id space and token bytes stored in every automaton
    /// compiled for this vocabulary.
    #[getter]
    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    /// The exact bytes of a text token, or `None` for a special token or an unused id.
    /// An id outside `0..size` raises `FstcError`.
    fn token_bytes<'py>(&self, py: Python<'py>, id: Int) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let id = self.id(&id, "id")?;
        Ok(self.inner.token_bytes(id).map(|b| PyBytes::new(py, b)))
    }

    /// The bytes a token sequence spells (special tokens spell nothing). An id outside
    /// `0..size` raises `FstcError`.
    fn detokenize<'py>(&self, py: Python<'py>, tokens: Vec<Int>) -> PyResult<Bound<'py, PyBytes>> {
        let ids = tokens
            .iter()
            .map(|t| self.id(t, "tokens"))
            .collect::<PyResult<Vec<u32>>>()?;
        Ok(PyBytes::new(py, &self.inner.detokenize(&ids)))
    }

    /// The token ids the tokenizer itself gives `text` (no BOS, no added prefix space).
    fn tokenize(&self, py: Python<'_>, text: &str) -> PyResult<Vec<u32>> {
        py.detach(|| self.inner.tokenize(text)).map_err(fstc_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "Vocabulary(origin={:?}, size={}, eos_ids={:?})",
            self.inner.origin(),
            self.inner.len(),
            self.inner.eos_ids()
        )
    }
}
