//! A static embedding model (model2vec's folder format: `config.json` with
//! `"model_type": "model2vec"`, `model.safetensors` holding one
//! `embeddings` table of a vector per vocabulary token, `tokenizer.json`):
//! a text's vector is the mean of its tokens' rows, scaled to unit length.
//! No network of layers runs, so it embeds thousands of passages a second.
//! [`distill`] makes one from a sentence-transformers BERT model: each
//! vocabulary token's vector is the model's own for that token alone, less
//! the mean of all of them (the direction every token shares says nothing
//! about meaning), weighted down for frequent tokens (smooth inverse
//! frequency, the vocabulary's order standing for frequency), as model2vec
//! distils.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use tokenizers::Tokenizer;

use super::{EmbedError, Embedder, SentenceBert, damaged, run};

/// The table's name in `model.safetensors`, as model2vec writes it.
const TABLE: &str = "embeddings";

/// Tokens read per text: the whole of a passage costs little here.
const MAX_TOKENS: usize = 512;

/// Smooth inverse frequency: a token of probability p weighs a / (a + p).
const SIF: f64 = 1e-4;

/// Vocabulary tokens run through the BERT model at once when distilling.
const DISTIL_BATCH: usize = 256;

pub struct StaticModel {
    id: String,
    fingerprint: String,
    dim: usize,
    /// One row of `dim` numbers per token id.
    table: Vec<f32>,
    tokenizer: Tokenizer,
}

/// Whether a `config.json` text names a static (model2vec) model.
pub(super) fn is_static(config: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(config)
        .is_ok_and(|v| v["model_type"].as_str() == Some("model2vec"))
}

impl StaticModel {
    /// Loads the static model in `dir`; every file it needs must be there
    /// and whole.
    pub fn load(dir: &Path) -> Result<StaticModel, EmbedError> {
        let config = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| damaged(dir, "config.json", e))?;
        let weights = std::fs::read(dir.join("model.safetensors"))
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let tokenizer_text = std::fs::read(dir.join("tokenizer.json"))
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        let tensors = candle_core::safetensors::load_buffer(&weights, &Device::Cpu)
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let table = tensors
            .get(TABLE)
            .ok_or_else(|| damaged(dir, "model.safetensors", "no embeddings table"))?;
        let (rows, dim) = table
            .dims2()
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let table = table
            .to_dtype(DType::F32)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| damaged(dir, "model.safetensors", e))?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_text)
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        // A transformer's tokenizer.json pads every text to a fixed length
        // and cuts it at 128 tokens: here a text's own tokens, up to
        // MAX_TOKENS, are its vector, and a pad would count as a token.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..tokenizers::TruncationParams::default()
            }))
            .map_err(|e| damaged(dir, "tokenizer.json", e))?;
        if tokenizer.get_vocab_size(true) > rows {
            return Err(damaged(
                dir,
                "model.safetensors",
                format!(
                    "{rows} rows for a vocabulary of {}",
                    tokenizer.get_vocab_size(true)
                ),
            ));
        }
        let fingerprint = super::bert::fingerprint(&[
            config.as_bytes(),
            &tokenizer_text,
            &weights[..weights.len().min(1 << 20)],
            &(weights.len() as u64).to_le_bytes(),
        ]);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| PathBuf::from(dir).display().to_string());
        Ok(StaticModel {
            id: format!("{name} (static, {dim} dims)"),
            fingerprint: format!("static-{dim}-{MAX_TOKENS}-{fingerprint}"),
            dim,
            table,
            tokenizer,
        })
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let encoding = self.tokenizer.encode(text, false).map_err(run)?;
        let mut sum = vec![0f32; self.dim];
        let real = encoding.get_attention_mask();
        for (&id, _) in encoding
            .get_ids()
            .iter()
            .zip(real)
            .filter(|&(_, &m)| m == 1)
        {
            let at = id as usize * self.dim;
            if let Some(row) = self.table.get(at..at + self.dim) {
                for (s, x) in sum.iter_mut().zip(row) {
                    *s += x;
                }
            }
        }
        // The mean's direction is the sum's; unit length either way.
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 1e-12 {
            for s in &mut sum {
                *s /= norm;
            }
        }
        Ok(sum)
    }
}

impl Embedder for StaticModel {
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
        texts.iter().map(|t| self.embed_one(t)).collect()
    }
}

/// Distils the BERT model in `from` into a static model written to `to`
/// (created if missing): `config.json`, `model.safetensors` (the table, as
/// 16-bit floats) and the BERT model's own `tokenizer.json`. `progress` is
/// told the tokens done and the vocabulary's size.
pub fn distill(
    from: &Path,
    to: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), EmbedError> {
    let bert = SentenceBert::load(from)?;
    let dim = bert.dim();
    let tokenizer = bert.tokenizer();
    let vocab = tokenizer.get_vocab_size(true);
    let mark = |name: &str| {
        tokenizer
            .token_to_id(name)
            .ok_or_else(|| damaged(from, "tokenizer.json", format!("no {name} token")))
    };
    let (start, end) = (mark("[CLS]")?, mark("[SEP]")?);
    let mut table: Vec<f32> = Vec::with_capacity(vocab * dim);
    let ids: Vec<u32> = (0..vocab).filter_map(|i| u32::try_from(i).ok()).collect();
    for chunk in ids.chunks(DISTIL_BATCH) {
        for v in bert.embed_tokens(chunk, start, end)? {
            table.extend(v);
        }
        progress(table.len() / dim, vocab);
    }
    centre_and_weigh(&mut table, dim);
    write(to, &table, vocab, dim, from)
}

/// Less the mean row; each row then weighted by smooth inverse frequency,
/// the row's place in the vocabulary standing for its rank (Zipf).
fn centre_and_weigh(table: &mut [f32], dim: usize) {
    let rows = table.len() / dim.max(1);
    let mut mean = vec![0f64; dim];
    for row in table.chunks(dim) {
        for (m, x) in mean.iter_mut().zip(row) {
            *m += f64::from(*x);
        }
    }
    let total: f64 = (0..rows).map(|r| 1.0 / (r as f64 + 2.0)).sum();
    for (r, row) in table.chunks_mut(dim).enumerate() {
        let p = 1.0 / (r as f64 + 2.0) / total;
        let weight = SIF / (SIF + p);
        for (x, m) in row.iter_mut().zip(&mean) {
            *x = ((f64::from(*x) - m / rows as f64) * weight) as f32;
        }
    }
}

fn write(to: &Path, table: &[f32], rows: usize, dim: usize, from: &Path) -> Result<(), EmbedError> {
    let io = |e: std::io::Error| run(format!("{}: {e}", to.display()));
    std::fs::create_dir_all(to).map_err(io)?;
    let tensor = Tensor::from_slice(table, (rows, dim), &Device::Cpu)
        .and_then(|t| t.to_dtype(DType::F16))
        .map_err(run)?;
    let tensors: HashMap<String, Tensor> = HashMap::from([(TABLE.to_string(), tensor)]);
    candle_core::safetensors::save(&tensors, to.join("model.safetensors")).map_err(run)?;
    std::fs::copy(from.join("tokenizer.json"), to.join("tokenizer.json")).map_err(io)?;
    let source = from
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let config = serde_json::json!({
        "model_type": "model2vec",
        "hidden_dim": dim,
        "normalize": true,
        "distilled_from": source,
        "sif_coefficient": SIF,
    });
    std::fs::write(to.join("config.json"), format!("{config:#}\n")).map_err(io)
}
