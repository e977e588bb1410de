#!/usr/bin/env python3
"""Exports microsoft/unixcoder-base to ONNX for OpenCoder's UniXcoder encoder (see scripts/export-unixcoder.md).

Needs a machine with internet access (once, to download the model) and:
    pip install torch transformers onnx onnxruntime

usage:
    python3 scripts/export-unixcoder.py OUT_MODELS_DIR [--quantize] [--opset 17]

Writes OUT_MODELS_DIR/unixcoder-base/:
    model.onnx             inputs input_ids, attention_mask (int64 [batch, sequence]);
                           output last_hidden_state (float32 [batch, sequence, 768])
    tokenizer.json         fast (Rust) tokenizer, read by @huggingface/tokenizers
    tokenizer_config.json  special tokens
    config.json            hidden size etc.
    reference.json         sample texts with the token ids and vectors the official UniXcoder code gives,
                           for `node bin/run-ts.js scripts/check-unixcoder.ts OUT_MODELS_DIR`
"""
import argparse
import json
import os

import numpy as np
import torch
from transformers import AutoTokenizer, RobertaModel

MODEL = "microsoft/unixcoder-base"
MAX_LENGTH = 512

SAMPLES = [
    "def parse_http_response(resp):\n    return json.loads(resp.text)",
    "function parseHttpResponse(response) { return JSON.parse(response.body); }",
    "Compute the CRC-32 checksum of a byte string.",
    "",
    "x = 1\n" * 400,  # longer than 512 tokens: truncated
]


def official_ids(tokenizer, text, max_length=MAX_LENGTH):
    """Token ids exactly as UniXcoder.tokenize(..., mode='<encoder-only>') in microsoft/CodeBERT builds them."""
    tokens = tokenizer.tokenize(text)[: max_length - 4]
    tokens = [tokenizer.cls_token, "<encoder-only>", tokenizer.sep_token] + tokens + [tokenizer.sep_token]
    return tokenizer.convert_tokens_to_ids(tokens)


class LastHiddenState(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="models folder (OpenCoder's --models folder)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--quantize", action="store_true", help="also write an int8 dynamically quantised model.onnx (smaller, faster on CPU, vectors differ slightly)")
    args = ap.parse_args()

    out = os.path.join(args.out, "unixcoder-base")
    os.makedirs(out, exist_ok=True)

    tokenizer = AutoTokenizer.from_pretrained(MODEL, use_fast=True)
    assert tokenizer.convert_tokens_to_ids("<encoder-only>") != tokenizer.unk_token_id, "no <encoder-only> token in the vocabulary"
    tokenizer.save_pretrained(out)  # tokenizer.json, tokenizer_config.json, vocab.json, merges.txt, special_tokens_map.json

    model = RobertaModel.from_pretrained(MODEL, add_pooling_layer=False)
    model.eval()
    model.config.save_pretrained(out)

    ids = torch.tensor([official_ids(tokenizer, SAMPLES[0]), official_ids(tokenizer, SAMPLES[0])])
    mask = torch.ones_like(ids)
    onnx_path = os.path.join(out, "model.onnx")
    export_kwargs = dict(
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "last_hidden_state": {0: "batch", 1: "sequence"},
        },
        opset_version=args.opset,
        do_constant_folding=True,
    )
    with torch.no_grad():
        try:
            torch.onnx.export(LastHiddenState(model), (ids, mask), onnx_path, dynamo=False, **export_kwargs)
        except TypeError:  # torch < 2.5 has no `dynamo` argument
            torch.onnx.export(LastHiddenState(model), (ids, mask), onnx_path, **export_kwargs)

    if args.quantize:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        fp32 = os.path.join(out, "model.fp32.onnx")
        os.replace(onnx_path, fp32)
        quantize_dynamic(fp32, onnx_path, weight_type=QuantType.QInt8)
        os.remove(fp32)

    # Reference vectors the official way (UniXcoder.forward: 3-d mask over non-pad tokens, mean over them, L2).
    reference = []
    with torch.no_grad():
        for text in SAMPLES:
            source_ids = torch.tensor([official_ids(tokenizer, text)])
            m = source_ids.ne(tokenizer.pad_token_id)
            try:
                hidden = model(source_ids, attention_mask=m.unsqueeze(1) * m.unsqueeze(2))[0]
            except Exception:  # some transformers versions only take 2-d masks; identical for unpadded input
                hidden = model(source_ids, attention_mask=m.long())[0]
            vec = (hidden * m.unsqueeze(-1)).sum(1) / m.sum(-1).unsqueeze(-1)
            vec = torch.nn.functional.normalize(vec, p=2, dim=1)[0]
            reference.append({"text": text, "ids": source_ids[0].tolist(), "vector": vec.numpy().astype(np.float64).tolist()})

    # Check the ONNX export against PyTorch on a padded batch.
    import onnxruntime as ort

    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    a, b = official_ids(tokenizer, SAMPLES[0]), official_ids(tokenizer, SAMPLES[2])
    T = max(len(a), len(b))
    batch = np.full((2, T), tokenizer.pad_token_id, dtype=np.int64)
    att = np.zeros((2, T), dtype=np.int64)
    for i, s in enumerate([a, b]):
        batch[i, : len(s)] = s
        att[i, : len(s)] = 1
    (onnx_hidden,) = sess.run(["last_hidden_state"], {"input_ids": batch, "attention_mask": att})
    with torch.no_grad():
        torch_hidden = model(torch.tensor(batch), attention_mask=torch.tensor(att))[0].numpy()
    diff = float(np.max(np.abs((onnx_hidden - torch_hidden) * att[:, :, None])))
    print(f"max |onnx - torch| over real tokens: {diff:.2e}")

    with open(os.path.join(out, "reference.json"), "w") as fh:
        json.dump({"model": MODEL, "max_length": MAX_LENGTH, "quantized": args.quantize, "samples": reference}, fh)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
