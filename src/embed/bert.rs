//! A sentence-transformers BERT model (config.json, model.safetensors,
//! tokenizer.json) run with candle on the CPU: token vectors averaged over
//! the real tokens (mean pooling) and scaled to unit length, as the
//! model's own `1_Pooling/config.json` asks for all-MiniLM-L6-v2.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::{EmbedError, Embedder, damaged, run};

/// Tokens read per text (the model reads up to 256): the start of a passage
/// says what it is about, and half the tokens take less than half the time.
const MAX_TOKENS: usize = 128;

/// Texts run through the model at once.
const BATCH: usize = 16;

pub struct SentenceBert {
    id: String,
    fingerprint: String,
    dim: usize,
    model: BertModel,
    tokenizer: Tokenizer,
}

/// The start of the SHA-256 of the model's files, in hex.
pub(super) fn fingerprint(files: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in files {
        h.update((f.len() as u64).to_le_bytes());
        h.update(f);
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl SentenceBert {
    /// Loads the model in `dir`; every file it needs must be there and whole.
    pub fn load(dir: &Path) -> Result<SentenceBert, EmbedError> {
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| damaged(dir, "config.json", e))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| damaged(dir, "config.json", e))?;
        let dim = serde_json::from_str::<serde_json::Value>(&config_text)
            .ok()
            .and_then(|v| v["hidden_size"].as_u64())
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| damaged(dir, "config.json", "no hidden_size"))?;
        let weights = std::fs::read(dir.join("model.safetensors"))
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let tokenizer_text = std::fs::read(dir.join("tokenizer.json"))
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        // The weights' length, start and end stand for them: hashing all of
        // them would cost every run a quarter of a second.
        let edge = weights.len().min(1 << 20);
        let fingerprint = fingerprint(&[
            config_text.as_bytes(),
            &tokenizer_text,
            &weights[..edge],
            &weights[weights.len() - edge..],
            &(weights.len() as u64).to_le_bytes(),
        ]);
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let model =
            BertModel::load(vb, &config).map_err(|e| damaged(dir, "model.safetensors", e))?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_text)
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| PathBuf::from(dir).display().to_string());
        Ok(SentenceBert {
            id: format!("{name} (bert, {dim} dims)"),
            fingerprint: format!("bert-{dim}-{MAX_TOKENS}-{fingerprint}"),
            dim,
            model,
            tokenizer,
        })
    }

    /// One batch: token ids in, mean-pooled unit vectors out.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(run)?;
        let rows = encodings.len();
        let width = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        self.pooled(ids, mask, rows, width)
    }

    /// The tokenizer this model reads with.
    pub(super) fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Each vocabulary token alone between the start and end marks
    /// (`[CLS] token [SEP]`), `ids` of them at once: the model's mean-pooled,
    /// unit-length vector for each. (Pooling the token's own output alone
    /// measured no better on the retrieval sets.)
    pub(super) fn embed_tokens(
        &self,
        ids: &[u32],
        start: u32,
        end: u32,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let rows = ids.len();
        let sequence: Vec<u32> = ids.iter().flat_map(|&id| [start, id, end]).collect();
        self.pooled(sequence, vec![1; rows * 3], rows, 3)
    }

    /// Token ids and their attention mask (`rows` x `width`) in, mean-pooled
    /// unit vectors out.
    fn pooled(
        &self,
        ids: Vec<u32>,
        mask: Vec<u32>,
        rows: usize,
        width: usize,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let device = Device::Cpu;
        let ids = Tensor::from_vec(ids, (rows, width), &device).map_err(run)?;
        let mask = Tensor::from_vec(mask, (rows, width), &device).map_err(run)?;
        let types = ids.zeros_like().map_err(run)?;
        let tokens = self.model.forward(&ids, &types, Some(&mask)).map_err(run)?;
        // Mean over the real tokens, then unit length.
        let mask = mask
            .to_dtype(DType::F32)
            .and_then(|m| m.unsqueeze(2))
            .map_err(run)?;
        let summed = tokens
            .broadcast_mul(&mask)
            .and_then(|t| t.sum(1))
            .map_err(run)?;
        let counts = mask
            .sum(1)
            .and_then(|c| c.clamp(1e-9, f32::MAX))
            .map_err(run)?;
        let mean = summed.broadcast_div(&counts).map_err(run)?;
        let norm = mean
            .sqr()
            .and_then(|s| s.sum_keepdim(1))
            .and_then(|s| s.sqrt())
            .and_then(|s| s.clamp(1e-12, f32::MAX))
            .map_err(run)?;
        mean.broadcast_div(&norm)
            .and_then(|v| v.to_vec2::<f32>())
            .map_err(run)
    }
}

impl Embedder for SentenceBert {
    fn id(&self) -> &str {
        &self.id
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Similar lengths share a batch, so little of it is padding.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, v) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}
