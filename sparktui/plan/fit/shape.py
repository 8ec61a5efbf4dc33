"""What a model's ``config.json`` says about its memory: the attention's KV layout per
layer (grouped heads, MLA's one latent, sliding windows) and a parameter count.

Pure: the engine reads the file on the node and hands the parsed JSON here. Field names
are those of the published Hugging Face configs (Llama, Qwen3 MoE, gpt-oss, GLM-4.5,
DeepSeek-V3); a config that lacks what a count needs raises ``ShapeError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2,
               "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1}
"""Bytes of one value by the names configs, ``--dtype`` and ``--kv-cache-dtype`` use."""

QUANT_BYTES = {"fp8": 1.0, "mxfp4": 4.25 / 8, "modelopt_fp4": 4.5 / 8, "nvfp4": 4.5 / 8,
               "awq": 4.25 / 8, "gptq": 4.25 / 8, "compressed-tensors": 1.0}
"""Bytes per quantized weight: FP8 is one byte; MXFP4 packs 4 bits plus one 8-bit scale
per 32 values (4.25 bits); NVFP4 4 bits plus an FP8 scale per 16 (4.5 bits); AWQ/GPTQ
4 bits plus scales (about 4.25 bits). Only used when the weights' sizes are not on disk."""


class ShapeError(ValueError):
    """config.json lacks a number the count needs (the key is named)."""


@dataclass(frozen=True)
class Shape:
    model_type: str
    layers: int
    dtype_bytes: int
    max_position: int
    kv_heads: int
    head_dim: int
    mla_latent: int  # kv_lora_rank + qk_rope_head_dim; 0: not an MLA model
    sliding_layers: int  # layers that keep only the last ``sliding_window`` tokens
    sliding_window: int

    @property
    def is_mla(self) -> bool:
        return self.mla_latent > 0

    @property
    def full_layers(self) -> int:
        return self.layers - self.sliding_layers


MAX_COUNT = 1 << 40
"""No config number is this big (a vocabulary, a window, a context length): one that is
would only make the count absurd or endless."""
MAX_LAYERS = 10_000


def _int(cfg: dict[str, Any], key: str) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise ShapeError(key)
    if key == "num_hidden_layers" and value > MAX_LAYERS:
        raise ShapeError(key)
    return value


def _opt(cfg: dict[str, Any], key: str) -> int:
    """An optional count: absent or null is 0; anything but a whole number names the key."""
    value = cfg.get(key)
    return 0 if value is None else _int(cfg, key)


def text_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Multimodal configs keep the language model's numbers under ``text_config``."""
    inner = cfg.get("text_config")
    return {**cfg, **inner} if isinstance(inner, dict) else cfg


def dtype_bytes(cfg: dict[str, Any]) -> int:
    """The weights' and activations' dtype (``torch_dtype``, or ``dtype`` in newer
    files); vLLM's ``--dtype auto`` serves float32 checkpoints in 16 bits."""
    name = cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16"
    return min(DTYPE_BYTES.get(str(name), 2), 2)


def parse_shape(raw: dict[str, Any]) -> Shape:
    cfg = text_config(raw)
    layers = _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    kv_heads = _int(cfg, "num_key_value_heads") if "num_key_value_heads" in cfg else heads
    if _opt(cfg, "head_dim"):
        head_dim = _int(cfg, "head_dim")
    else:
        if not heads:
            raise ShapeError("num_attention_heads")
        head_dim = _int(cfg, "hidden_size") // heads
    latent = 0
    if _opt(cfg, "kv_lora_rank"):  # MLA (DeepSeek V2/V3, Kimi K2): one latent per token
        latent = _int(cfg, "kv_lora_rank") + _int(cfg, "qk_rope_head_dim")
    types = cfg.get("layer_types")
    window = _opt(cfg, "sliding_window")
    sliding = 0
    if isinstance(types, list) and window > 0:
        sliding = sum(1 for t in types[:layers] if t == "sliding_attention")
    return Shape(model_type=str(cfg.get("model_type", "")), layers=layers,
                 dtype_bytes=dtype_bytes(cfg),
                 max_position=_opt(cfg, "max_position_embeddings"),
                 kv_heads=kv_heads, head_dim=head_dim, mla_latent=latent,
                 sliding_layers=sliding, sliding_window=window if sliding else 0)


# -- parameters (only when the files do not say the weights' size) -------------------

@dataclass(frozen=True)
class Params:
    embedding: int  # embed_tokens and lm_head, kept in the model's dtype
    dense: int  # every other weight of the layers
    experts: int  # routed experts' weights (the part MXFP4 checkpoints quantize)

    @property
    def total(self) -> int:
        return self.embedding + self.dense + self.experts


def _attention(cfg: dict[str, Any], hidden: int) -> int:
    heads = _int(cfg, "num_attention_heads")
    if _opt(cfg, "kv_lora_rank"):
        rope, nope = _int(cfg, "qk_rope_head_dim"), _int(cfg, "qk_nope_head_dim")
        v_dim, kv_rank = _int(cfg, "v_head_dim"), _int(cfg, "kv_lora_rank")
        q_rank = _opt(cfg, "q_lora_rank")
        q = (hidden * q_rank + q_rank + q_rank * heads * (nope + rope) if q_rank
             else hidden * heads * (nope + rope))
        kv = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
        return q + kv + heads * v_dim * hidden
    shape = parse_shape(cfg)
    q_out, kv_out = heads * shape.head_dim, shape.kv_heads * shape.head_dim
    total = hidden * q_out + 2 * hidden * kv_out + q_out * hidden
    if cfg.get("attention_bias"):
        total += q_out + 2 * kv_out + (hidden if cfg.get("model_type") == "gpt_oss" else 0)
    if cfg.get("model_type") in ("qwen3", "qwen3_moe") or cfg.get("use_qk_norm"):
        total += 2 * shape.head_dim  # q_norm, k_norm
    if cfg.get("model_type") == "gpt_oss":
        total += heads  # attention sinks
    return total


def _moe_layers(cfg: dict[str, Any], layers: int, experts: int) -> list[bool]:
    if not experts:
        return [False] * layers
    first_dense = _opt(cfg, "first_k_dense_replace")
    step = _opt(cfg, "decoder_sparse_step") or 1
    listed = cfg.get("mlp_only_layers") or []
    dense_only = {i for i in listed if isinstance(i, int)} if isinstance(listed, list) else set()
    return [i >= first_dense and i not in dense_only and (i + 1) % step == 0
            for i in range(layers)]


def parse_params(raw: dict[str, Any]) -> Params:
    """A parameter count from the config: embeddings, attention, the MLPs (dense or
    routed experts plus shared ones), norms. The MTP layers of DeepSeek and GLM
    (``num_nextn_predict_layers``) are not counted: engines load them only for
    speculative decoding."""
    cfg = text_config(raw)
    hidden, vocab = _int(cfg, "hidden_size"), _int(cfg, "vocab_size")
    layers = _int(cfg, "num_hidden_layers")
    embedding = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    experts = (_opt(cfg, "n_routed_experts") or _opt(cfg, "num_experts")
               or _opt(cfg, "num_local_experts"))
    moe_size = _opt(cfg, "moe_intermediate_size") or _opt(cfg, "intermediate_size")
    shared = _opt(cfg, "n_shared_experts")
    gpt_oss = cfg.get("model_type") == "gpt_oss"
    attention = _attention(cfg, hidden)
    dense_total = expert_total = 0
    for moe in _moe_layers(cfg, layers, experts):
        dense_total += attention + 2 * hidden  # input and post-attention norms
        if not moe:
            dense_total += 3 * hidden * _int(cfg, "intermediate_size")
            continue
        per_expert = 3 * hidden * moe_size
        if gpt_oss:  # biases on gate_up (2 x size) and down (hidden); the router's bias
            per_expert += 2 * moe_size + hidden
            dense_total += experts
        expert_total += experts * per_expert
        dense_total += hidden * experts + shared * 3 * hidden * moe_size
        if cfg.get("topk_method") == "noaux_tc" or cfg.get("model_type") == "glm4_moe":
            dense_total += experts  # e_score_correction_bias
    return Params(embedding=embedding, dense=dense_total + hidden, experts=expert_total)


def estimated_weight_bytes(raw: dict[str, Any]) -> int:
    """Params times bytes: the checkpoint's quantization for the layers (only the
    experts in MXFP4 checkpoints, whose attention stays in 16 bits), the model's dtype
    for embeddings."""
    cfg = text_config(raw)
    params = parse_params(cfg)
    width = dtype_bytes(cfg)
    quant = cfg.get("quantization_config") or {}
    method = str(quant.get("quant_method", "")) if isinstance(quant, dict) else ""
    qbytes = QUANT_BYTES.get(method)
    if qbytes is None:
        return params.total * width
    if method == "mxfp4":
        return round((params.embedding + params.dense) * width + params.experts * qbytes)
    return round(params.embedding * width + (params.dense + params.experts) * qbytes)
