"""How each int8 scheme of the onnx-int8 backend trades quality for speed.

Exports the packaged all-MiniLM-L6-v2 to ONNX as ragloom does, quantizes it with each
``per_token`` choice of ragloom/embeddings/onnx_int8.py (``none``: ONNX Runtime's dynamic
quantization, one activation scale per input; ``unshared``: per-token scales for every
matrix that alone reads its input, the default; ``all``), and prints for each the mean
and lowest cosine to torch fp32 on Cranfield abstracts (prose) and standard-library
pieces (code), and texts per second on one core (best of ``--runs``).

    python bench/int8_quantization.py [--texts 300] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _data import cranfield_texts, stdlib_pieces  # noqa: E402

from ragloom.embeddings import onnx_backend  # noqa: E402
from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402
from ragloom.embeddings.onnx_int8 import PER_TOKEN_CHOICES, quantize_int8  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="texts per corpus")
    parser.add_argument("--runs", type=int, default=3, help="speed runs per scheme (best is kept)")
    args = parser.parse_args()
    import torch

    torch_provider = LocalEmbeddingProvider(backend="torch")
    model = torch_provider._model
    corpora = {"prose": [text for _, text in cranfield_texts()][:args.texts],
               "code": stdlib_pieces(20 * args.texts)[::20]}
    references = {name: torch_provider.embed(texts) for name, texts in corpora.items()}
    print(f"cosine to torch fp32 ({args.texts} texts each), texts/s on one core (prose, best of {args.runs})")
    print(f"{'per_token':10} {'prose mean':>11} {'prose min':>10} {'code mean':>10} {'code min':>9} "
          f"{'texts/s':>8}")
    with tempfile.TemporaryDirectory() as folder:
        exported = Path(folder) / "model.onnx"
        onnx_backend._export(torch, model, exported)
        for per_token in PER_TOKEN_CHOICES:
            quantized = Path(folder) / f"{per_token}.onnx"
            quantize_int8(exported, quantized, per_token)
            encoder = onnx_backend.OnnxEncoder(quantized, model.tokenizer, model.max_seq_length, threads=1)
            cosines = {name: np.sum(references[name] * encoder.encode(texts, normalize=True), axis=1)
                       for name, texts in corpora.items()}
            seconds = []
            for _ in range(args.runs):
                started = time.perf_counter()
                encoder.encode(corpora["prose"], normalize=True)
                seconds.append(time.perf_counter() - started)
            label = per_token + (" *" if per_token == "unshared" else "")
            print(f"{label:10} {cosines['prose'].mean():11.5f} {cosines['prose'].min():10.4f} "
                  f"{cosines['code'].mean():10.5f} {cosines['code'].min():9.4f} "
                  f"{len(corpora['prose']) / min(seconds):8.1f}", flush=True)
    print("* the default")


if __name__ == "__main__":
    main()
