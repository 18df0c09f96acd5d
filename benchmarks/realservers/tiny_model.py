"""A tiny random-weight llama GGUF for llama-server, written with the ``gguf`` package (PyPI).

No hub is reachable here, so the model is made: 2 layers, hidden 64 (``small``: 4 layers,
hidden 256), a SentencePiece-style ("llama") vocabulary of the words in this repo's prompts
(every word with all its prefixes, so llama.cpp's bigram merger reaches whole words) plus the
256 byte-fallback tokens, and a Jinja chat template. The output is gibberish: fine for load tests.

One trick makes output length exact: hidden dimension 0 carries a large constant in every
token's embedding that no layer writes to, and the output rows of EOS, the control tokens and
the non-ASCII byte tokens are strongly negative along it. So the model never ends a stream by
itself (``max_tokens`` alone sets the length, with or without ``ignore_eos``) and never emits
a partial UTF-8 sequence (which llama-server would hold back, merging chunks).
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import numpy as np

# (layers, hidden, feed-forward, heads) by name. "tiny" decodes a token in ~0.2 ms here, below
# what a client can resolve; "small" (~8M params) takes ~1-2 ms a token and tens of ms a prompt.
SIZES = {"tiny": (2, 64, 128, 4), "small": (4, 256, 768, 4)}
N_CTX_TRAIN = 8192
MAX_WORDS = 1200
SPACE = "\u2581"  # SentencePiece's word-boundary mark
ANCHOR = 8.0  # the constant on hidden dimension 0
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)
# gguf token types
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


def _words() -> list[str]:
    """The most frequent words of the repo's prompts (a fixed list when they are absent)."""
    text = (
        " ".join(p.read_text() for p in sorted(PROMPTS.glob("*.txt"))) if PROMPTS.exists() else ""
    )
    counts = collections.Counter(re.findall(r"[A-Za-z]+|[0-9]+", text))
    words = [w for w, _ in counts.most_common(MAX_WORDS)]
    return words or ["the", "of", "and", "to", "a", "in", "is", "that", "for", "it"]


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and types: specials, bytes, ASCII characters, then words and prefixes."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256
    pieces: dict[str, None] = dict.fromkeys([SPACE] + [chr(c) for c in range(0x21, 0x7F)])
    for word in _words():
        for piece in (SPACE + word, word):
            for end in range(2, len(piece) + 1):
                pieces.setdefault(piece[:end])
    tokens += list(pieces)
    types += [NORMAL] * len(pieces)
    scores = [0.0] * 259 + [float(len(p)) for p in pieces]  # longer merges first
    return tokens, scores, types


def _suppressed(tokens: list[str], types: list[int]) -> list[int]:
    """Tokens the model must never produce: specials and bytes that are not printable ASCII."""
    return [
        i
        for i, (tok, kind) in enumerate(zip(tokens, types, strict=True))
        if kind in (UNKNOWN, CONTROL) or (kind == BYTE and not 0x20 <= int(tok[3:5], 16) < 0x7F)
    ]


def _weights(n_vocab: int, suppressed: list[int], seed: int, size: str) -> dict[str, np.ndarray]:
    """Random weights (numpy shapes are ggml's reversed), with the anchor dimension wired."""
    n_layers, n_embd, n_ff, _ = SIZES[size]
    rng = np.random.default_rng(seed)

    def rand(*shape: int, scale: float = 0.1) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    embd = rand(n_vocab, n_embd, scale=0.5)
    embd[:, 0] = ANCHOR * np.sqrt(n_embd / 64)  # the same share of the RMS at any width
    output = rand(n_vocab, n_embd, scale=1.0)
    output[:, 0] = 0.0
    output[suppressed, 0] = -100.0
    tensors = {
        "token_embd.weight": embd,
        "output_norm.weight": np.ones(n_embd, dtype=np.float32),
        "output.weight": output,
    }
    for layer in range(n_layers):
        blk = f"blk.{layer}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensors[blk + name + ".weight"] = rand(n_embd, n_embd)
        tensors[blk + "ffn_gate.weight"] = rand(n_ff, n_embd)
        tensors[blk + "ffn_up.weight"] = rand(n_ff, n_embd)
        tensors[blk + "ffn_down.weight"] = rand(n_embd, n_ff)
        for name in ("attn_output", "ffn_down"):  # nothing writes to the anchor dimension
            tensors[blk + name + ".weight"][0, :] = 0.0
        tensors[blk + "attn_norm.weight"] = np.ones(n_embd, dtype=np.float32)
        tensors[blk + "ffn_norm.weight"] = np.ones(n_embd, dtype=np.float32)
    return tensors


def write(path: Path, seed: int = 0, size: str = "tiny") -> Path:
    """Write the model to ``path`` (atomically: a partly written file never has the name)."""
    import gguf  # imported here: only model making needs it

    n_layers, n_embd, n_ff, n_head = SIZES[size]
    tokens, scores, types = vocabulary()
    tmp = path.with_suffix(".tmp")
    writer = gguf.GGUFWriter(str(tmp), "llama")
    writer.add_name(f"sparkload-{size}-llama")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layers)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_add_space_prefix(True)
    writer.add_chat_template(CHAT_TEMPLATE)
    for name, array in _weights(len(tokens), _suppressed(tokens, types), seed, size).items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.rename(path)
    return path
