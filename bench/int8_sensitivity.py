"""Which matrices of the local model int8 quantization hurts most.

Exports the packaged all-MiniLM-L6-v2 to ONNX as ragloom does, then quantizes one weight
matrix at a time (the rest stays fp32) and prints how much mean cosine to torch fp32 each
costs, on Cranfield abstracts (prose) and standard-library pieces (code). The matrices at
the top of both lists are the ones ``FP32_MATRICES`` in ragloom/embeddings/onnx_backend.py
keeps in fp32; the last lines check the choice against quantizing everything.

    python bench/int8_sensitivity.py [--texts 150]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _data import cranfield_texts, stdlib_pieces  # noqa: E402

from ragloom.embeddings import onnx_backend  # noqa: E402
from ragloom.embeddings.local import DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider  # noqa: E402


def mean_cosine_loss(model_file: Path, tokenizer: object, texts: list[str], reference: np.ndarray) -> float:
    vectors = onnx_backend.OnnxEncoder(model_file, tokenizer, 256).encode(texts, normalize=True)
    return float(1.0 - np.mean(np.sum(reference * vectors, axis=1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=150, help="texts per corpus")
    args = parser.parse_args()
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)
    torch_provider = LocalEmbeddingProvider(backend="torch")
    model = torch_provider._model
    corpora = {"prose": [text for _, text in cranfield_texts()][:args.texts],
               "code": stdlib_pieces(20 * args.texts)[::20]}
    references = {name: torch_provider.embed(texts) for name, texts in corpora.items()}
    with tempfile.TemporaryDirectory() as folder:
        exported = Path(folder) / "model.onnx"
        onnx_backend._export(torch, model, exported)
        graph = onnx.load(str(exported)).graph
        weights = {initializer.name for initializer in graph.initializer}
        matrices = [node.name for node in graph.node
                    if node.op_type == "MatMul" and weights.intersection(node.input)]
        quantized = Path(folder) / "one.onnx"

        def losses(**options: object) -> dict[str, float]:
            quantize_dynamic(str(exported), str(quantized), per_channel=True,
                             weight_type=QuantType.QInt8, **options)  # type: ignore[arg-type]
            return {name: mean_cosine_loss(quantized, model.tokenizer, texts, references[name])
                    for name, texts in corpora.items()}

        rows = [(name, losses(nodes_to_quantize=[name])) for name in matrices]
        rows.sort(key=lambda row: -sum(row[1].values()))
        print(f"mean cosine lost to torch fp32, one matrix quantized ({args.texts} texts each):")
        print(f"  {'matrix':55} {'prose':>9} {'code':>9}")
        for name, loss in rows:
            print(f"  {name.removeprefix('/model/encoder/'):55} {loss['prose']:9.6f} {loss['code']:9.6f}")
        kept = onnx_backend._kept_in_fp32(exported, DEFAULT_LOCAL_MODEL)
        for label, options in (("all quantized", {}),
                               (f"{len(kept)} kept in fp32", {"nodes_to_exclude": kept})):
            loss = losses(**options)
            print(f"{label:20}: prose {loss['prose']:.6f}  code {loss['code']:.6f}")


if __name__ == "__main__":
    main()
