"""Building the ONNX export of a sentence-transformers model (needs torch; done once).

The export uses the transformer's plain ("eager") attention, whose graph ONNX Runtime fuses
into its own kernels; int8 scales most matrices' activations per token (``onnx_int8``).
Beside the model the folder keeps the tokenizer (``tokenizer.json``, as the model's fast
tokenizer was configured) and the model's shape in the manifest, so that using the export
later needs neither torch nor sentence-transformers.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragloom._optional import import_optional
from ragloom.embeddings.model_info import info_of_model
from ragloom.embeddings.onnx_backend import MANIFEST, MODEL_FILES, TOKENIZER_FILE, sha256_of
from ragloom.embeddings.onnx_int8 import quantize_int8


def build_export(st_model: Any, folder: Path, backend: str) -> None:
    """Write the export of ``st_model`` for ``backend`` to ``folder`` (replaced only once
    complete: it is built in a staging folder beside it)."""
    torch = import_optional("torch", "local", "exporting the model to ONNX")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _root_logging_kept():
        _build(torch, st_model, folder, backend)


@contextmanager
def _root_logging_kept() -> Iterator[None]:
    """Undo handlers the exporters add to the root logger: a module-level ``logging.warning``
    in them calls ``basicConfig``, which would print every later record of the app."""
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        yield
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)


def _build(torch: Any, st_model: Any, folder: Path, backend: str) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        exported = staging / MODEL_FILES["onnx"]
        _export(torch, st_model, exported)
        files = [exported]
        if backend == "onnx-int8":
            quantized = staging / MODEL_FILES["onnx-int8"]
            quantize_int8(exported, quantized)
            exported.unlink()
            files = [quantized]
        files.append(_save_tokenizer(st_model.tokenizer, staging / TOKENIZER_FILE))
        manifest = {"backend": backend, "files": {f.name: sha256_of(f) for f in files},
                    "model": info_of_model(st_model).to_dict()}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)  # our own cache folder, found incomplete or corrupt
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _save_tokenizer(tokenizer: Any, target: Path) -> Path:
    """The fast tokenizer's backend as the model uses it (normalizer, pre-tokenizer and
    post-processor), without truncation or padding: the runtime sets those per call."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        from ragloom.errors import EmbeddingError

        raise EmbeddingError("the ONNX backends need a model with a fast (Rust) tokenizer; "
                             "use [rag.embedding] backend = \"torch\"")
    from tokenizers import Tokenizer

    copy = Tokenizer.from_str(backend.to_str())
    copy.no_truncation()
    copy.no_padding()
    copy.save(str(target))
    return target


def _export(torch: Any, st_model: Any, target: Path) -> None:
    """The transformer of ``st_model`` as ONNX: token ids in, last hidden states out."""
    transformer = st_model[0].auto_model
    attention = getattr(transformer.config, "_attn_implementation", None)
    switch = attention not in (None, "eager") and hasattr(transformer, "set_attn_implementation")
    if switch:
        transformer.set_attn_implementation("eager")
    try:
        _export_graph(torch, transformer, st_model.tokenizer, target)
    finally:
        if switch:
            transformer.set_attn_implementation(attention)


def _export_graph(torch: Any, transformer: Any, tokenizer: Any, target: Path) -> None:

    class HiddenStates(torch.nn.Module):  # keyword call: the model's positional order varies
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    sample = tokenizer(["a short text", "a somewhat longer text to export"], padding=True,
                       return_tensors="pt", return_token_type_ids=True)
    dynamic = {name: {0: "batch", 1: "tokens"}
               for name in ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(HiddenStates(transformer.eval()),
                          (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                          str(target), input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], dynamic_axes=dynamic, opset_version=17,
                          dynamo=False)
