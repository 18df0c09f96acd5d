"""Random LoRA adapters for a model's attention, for serving adapters without a GPU or a hub.

vLLM's CPU build serves LoRA adapters of the tiny random model (``vllm-cpu.sh``); this writes
adapters in PEFT's layout (``adapter_config.json`` and ``adapter_model.safetensors``), rank R on
``q_proj`` and ``v_proj`` of every layer, their shapes read from the model's ``config.json``
(hidden size, heads, key-value heads, head size), the weights small seeded noise (what an
adapter answers is noise anyway; what matters is that the server loads and switches it)::

    ~/.cache/vllm-cpu-lab/venv/bin/python tools/make_lora_adapters.py \\
        ~/.cache/vllm-cpu-lab/model /tmp/lora tenant-a tenant-b

    VLLM_CPU_ARGS='--enable-lora --max-loras 2 --max-lora-rank 8 \\
        --lora-modules tenant-a=/tmp/lora/tenant-a tenant-b=/tmp/lora/tenant-b' \\
        bash /work/shared/tools/vllm-cpu.sh start 8614

It needs ``numpy`` and ``safetensors`` (both in the vLLM venv), not sparkload.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

TARGETS = ("q_proj", "v_proj")


def projection_shapes(config: dict) -> dict[str, tuple[int, int]]:
    """(in, out) of each targeted projection, as the model's config sizes them."""
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_dim = int(config.get("head_dim") or hidden // heads)
    kv_heads = int(config.get("num_key_value_heads") or heads)
    return {"q_proj": (hidden, heads * head_dim), "v_proj": (hidden, kv_heads * head_dim)}


def adapter_tensors(config: dict, rank: int, seed: int) -> dict[str, np.ndarray]:
    """lora_A (rank x in) and lora_B (out x rank) of every layer's targets, seeded noise."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in range(int(config["num_hidden_layers"])):
        for target, (fan_in, fan_out) in projection_shapes(config).items():
            key = f"base_model.model.model.layers.{layer}.self_attn.{target}"
            tensors[f"{key}.lora_A.weight"] = rng.normal(0, 0.02, (rank, fan_in)).astype(np.float32)
            tensors[f"{key}.lora_B.weight"] = rng.normal(0, 0.02, (fan_out, rank)).astype(
                np.float32
            )
    return tensors


def write_adapter(model: Path, out: Path, rank: int, seed: int) -> None:
    config = json.loads((model / "config.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    peft = {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": str(model),
        "r": rank,
        "lora_alpha": 2 * rank,
        "lora_dropout": 0.0,
        "target_modules": list(TARGETS),
        "bias": "none",
        "fan_in_fan_out": False,
        "modules_to_save": None,
    }
    (out / "adapter_config.json").write_text(json.dumps(peft, indent=2) + "\n")
    save_file(adapter_tensors(config, rank, seed), str(out / "adapter_model.safetensors"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, help="the base model's directory (its config.json)")
    parser.add_argument("out", type=Path, help="where the adapters go, one directory each")
    parser.add_argument("names", nargs="+", help="the adapters' names")
    parser.add_argument("--rank", type=int, default=8, help="LoRA rank (default: 8)")
    parser.add_argument("--seed", type=int, default=0, help="the first adapter's seed (default: 0)")
    args = parser.parse_args()
    for offset, name in enumerate(args.names):
        write_adapter(args.model, args.out / name, args.rank, args.seed + offset)
        print(args.out / name)


if __name__ == "__main__":
    main()
