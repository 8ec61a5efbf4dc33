"""The fit calculator against answers worked out by hand from real config.json files
(tests/data/model-configs/): parameters, weights and KV cache per token of each family.

Each expected number is written as arithmetic from the config's own values, so a wrong
formula in sparktui.plan.fit and a wrong hand count cannot agree by accident; the
parameter totals are also the published ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparktui.plan.fit.calc import (
    ENGINE_OVERHEAD,
    FITS,
    NO_FIT,
    TIGHT,
    Layout,
    kv_bytes,
    node_fit,
)
from sparktui.plan.fit.settings import parse_settings
from sparktui.plan.fit.shape import estimated_weight_bytes, parse_params, parse_shape

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "model-configs"
BF16 = 2
GIB = 1 << 30


def config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def kv_per_token(name: str, tp: int = 1, value: int = BF16) -> int:
    shape = parse_shape(config(name))
    return kv_bytes(shape, value, Layout("vllm", tp, 1, tp), tokens=1, sequences=1)[1]


# -- Llama 3.1: dense, grouped-query attention ---------------------------------------

def test_llama_8b_params_weights_and_kv_per_token():
    embed = 128256 * 4096  # vocab x hidden; lm_head is not tied: twice
    attn = 4096 * 4096 + 2 * 4096 * (8 * 128) + 4096 * 4096  # q, k+v (8 KV heads x 128), o
    mlp = 3 * 4096 * 14336  # gate, up, down
    layer = attn + mlp + 2 * 4096  # two RMSNorms
    params = 2 * embed + 32 * layer + 4096  # + the final norm
    assert params == 8_030_261_248  # the published count
    assert parse_params(config("llama-3.1-8b")).total == params
    assert estimated_weight_bytes(config("llama-3.1-8b")) == params * BF16
    # K and V, 8 heads of 128, bf16, 32 layers: 128 KiB per token
    assert kv_per_token("llama-3.1-8b") == 2 * 8 * 128 * BF16 * 32 == 131_072


def test_llama_70b_params_and_kv_split_over_tensor_parallel_ranks():
    embed = 128256 * 8192
    attn = 8192 * 8192 + 2 * 8192 * (8 * 128) + 8192 * 8192
    layer = attn + 3 * 8192 * 28672 + 2 * 8192
    params = 2 * embed + 80 * layer + 8192
    assert params == 70_553_706_496
    assert parse_params(config("llama-3.1-70b")).total == params
    assert kv_per_token("llama-3.1-70b") == 2 * 8 * 128 * BF16 * 80
    # TP 2: each rank holds 4 of the 8 KV heads
    assert kv_per_token("llama-3.1-70b", tp=2) == 2 * 4 * 128 * BF16 * 80
    # TP 16 > 8 KV heads: a head is replicated, never split below one per rank
    assert kv_per_token("llama-3.1-70b", tp=16) == 2 * 1 * 128 * BF16 * 80


# -- Qwen3 MoE ---------------------------------------------------------------------

def test_qwen3_moe_params_and_kv():
    embed = 151936 * 2048
    attn = 2048 * (32 * 128) + 2 * 2048 * (4 * 128) + (32 * 128) * 2048 + 2 * 128  # q/k norm
    experts = 128 * 3 * 2048 * 768  # 128 experts of moe_intermediate_size 768
    router = 2048 * 128
    layer = attn + experts + router + 2 * 2048
    params = 2 * embed + 48 * layer + 2048
    assert params == 30_532_122_624
    assert parse_params(config("qwen3-30b-a3b")).total == params
    assert kv_per_token("qwen3-30b-a3b") == 2 * 4 * 128 * BF16 * 48 == 98_304


# -- gpt-oss: alternating sliding-window and full attention, MXFP4 experts ------------

def test_gpt_oss_params_weights_and_sliding_window_kv():
    cfg = config("gpt-oss-120b")
    embed = 201088 * 2880
    attn = (2880 * 4096 + 2 * 2880 * 512 + 4096 * 2880  # 64 q heads, 8 KV heads, of 64
            + 4096 + 2 * 512 + 2880 + 64)  # q/k/v/o biases, one sink per head
    expert = 3 * 2880 * 2880 + 2 * 2880 + 2880  # gate_up + down, with their biases
    router = 2880 * 128 + 128
    per_layer_dense = attn + 2 * 2880 + router
    params = 2 * embed + 36 * (per_layer_dense + 128 * expert) + 2880
    assert params == 116_829_156_672  # 116.8 B, as published
    counted = parse_params(cfg)
    assert counted.total == params
    # MXFP4: 4 bits and an 8-bit scale per 32 values for the experts; the rest bf16
    expected = (2 * embed + 36 * per_layer_dense + 2880) * BF16 + 36 * 128 * expert * 4.25 / 8
    assert estimated_weight_bytes(cfg) == round(expected)
    assert 60 * GIB < expected < 61 * GIB  # the checkpoint is about 60.8 GiB

    shape = parse_shape(cfg)
    assert (shape.sliding_layers, shape.full_layers, shape.sliding_window) == (18, 18, 128)
    per_layer = 2 * 8 * 64 * BF16  # K and V, 8 heads of 64
    layout = Layout("vllm", 1, 1, 1)
    assert kv_bytes(shape, BF16, layout, 1, 1)[1] == per_layer * 36
    # 32k tokens: full layers keep every token, sliding layers the last 128 only
    total, _ = kv_bytes(shape, BF16, layout, 32768, 1)
    assert total == per_layer * (18 * 32768 + 18 * 128)


# -- GLM-4.5-Air: MoE with a dense first layer and a shared expert --------------------

def test_glm_air_params_and_kv():
    embed = 151552 * 4096
    attn = (4096 * (96 * 128) + 2 * 4096 * (8 * 128) + (96 * 128) * 4096
            + (96 * 128) + 2 * (8 * 128))  # q, k, v carry biases (attention_bias)
    dense_layer = attn + 3 * 4096 * 10944 + 2 * 4096  # first_k_dense_replace = 1
    moe_layer = (attn + 128 * 3 * 4096 * 1408 + 4096 * 128 + 3 * 4096 * 1408 + 128
                 + 2 * 4096)  # routed experts, router, shared expert, score bias, norms
    params = 2 * embed + dense_layer + 45 * moe_layer + 4096
    assert params == 106_852_251_264  # 106 B without the MTP layer
    assert parse_params(config("glm-4.5-air")).total == params
    assert kv_per_token("glm-4.5-air") == 2 * 8 * 128 * BF16 * 46


# -- DeepSeek-V3: MLA, one latent per token, the same on every rank -------------------

def test_deepseek_v3_params_fp8_weights_and_mla_kv():
    cfg = config("deepseek-v3")
    embed = 129280 * 7168
    q = 7168 * 1536 + 1536 + 1536 * 128 * (128 + 64)  # q_a, its norm, q_b
    kv = 7168 * (512 + 64) + 512 + 512 * 128 * (128 + 128)  # kv_a (+rope), norm, kv_b
    o = 128 * 128 * 7168
    attn = q + kv + o
    dense = 3 * (attn + 3 * 7168 * 18432 + 2 * 7168)  # first_k_dense_replace = 3
    moe = 58 * (attn + 256 * 3 * 7168 * 2048 + 7168 * 256 + 3 * 7168 * 2048 + 256
                + 2 * 7168)
    params = 2 * embed + dense + moe + 7168
    assert params == 671_026_419_200  # 671 B without the MTP layer
    counted = parse_params(cfg)
    assert counted.total == params
    # FP8 checkpoint: one byte per layer weight, embeddings in bf16
    assert estimated_weight_bytes(cfg) == 2 * embed * BF16 + (params - 2 * embed) * 1
    # MLA: (kv_lora_rank + qk_rope_head_dim) values per layer and token, no heads
    assert kv_per_token("deepseek-v3") == (512 + 64) * BF16 * 61 == 70_272
    assert kv_per_token("deepseek-v3", tp=4) == (512 + 64) * BF16 * 61  # not split by TP


# -- the verdict ---------------------------------------------------------------------

def _fit(name, mem_gib, args, engine="vllm", tp=1, nodes=1, weights=None):
    cfg = config(name)
    settings = parse_settings(engine, args, tp)
    total = weights if weights is not None else estimated_weight_bytes(cfg)
    return node_fit("spark1", int(mem_gib * GIB), total, "config", parse_shape(cfg), settings,
                    Layout(engine, tp, 1, nodes))


def test_llama_70b_bf16_does_not_fit_one_spark_but_fits_two_with_tp2():
    weights = 70_553_706_496 * BF16  # 131.4 GiB
    alone = _fit("llama-3.1-70b", 119.7, ["--max-model-len", "8192"])
    assert alone.verdict == NO_FIT and alone.weights == weights
    pair = _fit("llama-3.1-70b", 119.7, ["--max-model-len", "8192"], tp=2, nodes=2)
    assert pair.weights == weights // 2
    kv = 8192 * 2 * 4 * 128 * BF16 * 80  # 4 KV heads per rank
    assert pair.kv == kv
    budget = int(0.9 * int(119.7 * GIB))  # vLLM's default --gpu-memory-utilization
    assert pair.budget == budget
    assert pair.needed == weights // 2 + kv + ENGINE_OVERHEAD
    assert pair.headroom == budget - pair.needed
    assert pair.verdict == FITS  # 65.7 + 2.5 + 3 GiB of 107.7


def test_max_num_seqs_and_fp8_kv_and_tight():
    # gpt-oss-120b on one Spark: 60.7 GiB of weights; 16 full-length 128k sequences in
    # fp8 KV: 16 x (18 x 131072 + 18 x 128) x 2 x 8 x 64 x 1 byte = 36.0 GiB
    fit = _fit("gpt-oss-120b", 119.7, ["--max-num-seqs", "16", "--kv-cache-dtype", "fp8"])
    assert fit.kv == 16 * (18 * 131072 + 18 * 128) * 2 * 8 * 64 * 1
    assert fit.verdict == TIGHT  # 99.7 of 107.7 GiB: less than 10% left
    assert 0 < fit.headroom < 0.10 * fit.budget


def test_sglang_share_holds_weights_and_kv_the_engine_lives_outside():
    fit = _fit("qwen3-30b-a3b", 119.7, ["--mem-fraction-static", "0.75",
                                         "--context-length", "32k"], engine="sglang")
    assert fit.share == 0.75 and fit.kv_tokens == 32000
    assert fit.needed == fit.weights + fit.kv  # the engine's own memory is not in the share
    assert fit.verdict == FITS


def test_sglang_without_room_outside_the_share_does_not_fit():
    fit = _fit("llama-3.1-8b", 24, ["--mem-fraction-static", "0.99",
                                     "--context-length", "4096"], engine="sglang")
    # 1% of 24 GiB (0.24 GiB) cannot hold the engine's 3 GiB of activations and graphs
    assert fit.verdict == NO_FIT and fit.headroom > 0


@pytest.mark.parametrize("args, flag", [(["--max-model-len", "lots"], "--max-model-len"),
                                        (["--gpu-memory-utilization=1.5"],
                                         "--gpu-memory-utilization")])
def test_a_flag_that_is_no_number_is_named(args, flag):
    from sparktui.plan.fit.settings import SettingError

    with pytest.raises(SettingError) as info:
        parse_settings("vllm", args, 1)
    assert info.value.flag == flag


def test_auto_max_model_len_counts_no_kv_and_a_value_with_units_is_read():
    assert _fit("llama-3.1-8b", 119.7, ["--max-model-len", "auto"]).kv == 0
    assert _fit("llama-3.1-8b", 119.7, ["--max-model-len=-1"]).kv == 0
    assert _fit("llama-3.1-8b", 119.7, ["--max_model_len", "32K"]).kv_tokens == 32 * 1024
    default = _fit("llama-3.1-8b", 119.7, [])
    assert default.kv_tokens == 131072  # max_position_embeddings
    assert default.kv == 131072 * 2 * 8 * 128 * BF16 * 32  # 16 GiB for one sequence
