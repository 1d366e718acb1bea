"""Where the parts of an index live in its folder (``<base_dir>/<index_dir>``): the one
place their names are written. The engine opens them, ``ragloom status`` reads and sizes
them, and a reader finding no index of its own store looks for another's, all by asking
this module (``tests/test_architecture.py`` checks no other module spells a name).

Per collection and store: the manifest ``manifest_<store>_<collection>.sqlite``, the BM25
index ``bm25_<store>_<collection>.segments/`` and, for a store keeping local files, its
folder ``<provider>_<collection>/``. Shared by the folder: the embedding cache
``embeddings.sqlite`` and the writer's process lock ``lock``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ragloom.tenancy import tenant_file

_MANIFEST = ("manifest_", ".sqlite")
_BM25 = ("bm25_", ".segments")
_EMBEDDING_CACHE = "embeddings.sqlite"
_WRITER_LOCK = "lock"


@dataclass(frozen=True)
class IndexLayout:
    """The files of one collection's index in ``folder``."""

    folder: Path
    collection: str
    #: A tenant's own manifest, BM25 index and embedding cache are named apart
    #: (``manifest_x_docs@acme.sqlite``, ``tenancy.tenant_file``); the store is shared.
    tenant: str | None = None

    def manifest(self, store: str) -> Path:
        """The manifest of ``store`` (a store's name) for this collection."""
        return self.folder / tenant_file(f"{_MANIFEST[0]}{store}_{self.collection}{_MANIFEST[1]}",
                                         self.tenant)

    def bm25(self, store: str) -> Path:
        """The BM25 index folder of ``store`` for this collection."""
        return self.folder / tenant_file(f"{_BM25[0]}{store}_{self.collection}{_BM25[1]}", self.tenant)

    def store_folder(self, provider: str) -> Path:
        """The default folder of a store keeping local files: the provider key (a
        ``module:factory`` path made a file name) and the collection."""
        return self.folder / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', provider)}_{self.collection}"

    def file_names(self, store: str) -> list[str]:
        """What this collection's index of ``store`` is called in the folder: its default
        store folder, manifest and BM25 folder (compared by case on case-insensitive disks)."""
        return [self.store_folder(store).name, self.manifest(store).name, self.bm25(store).name]

    @property
    def embedding_cache(self) -> Path:
        return self.folder / tenant_file(_EMBEDDING_CACHE, self.tenant)

    @property
    def writer_lock(self) -> Path:
        """The writer's process lock (``locking.ProcessLock`` adds its own suffixes)."""
        return self.folder / _WRITER_LOCK

    def stores_with_manifest(self) -> list[str]:
        """Names of the stores with a manifest of this collection here (file names only:
        nothing is opened), sorted."""
        prefix, suffix = _MANIFEST[0], f"_{self.collection}{_MANIFEST[1]}"
        names = sorted(path.name for path in self.folder.glob(f"{prefix}*{suffix}"))
        return [name[len(prefix):-len(suffix)] for name in names]


def part_of(name: str) -> str:
    """Which part of an index a top-level entry of its folder belongs to, by name:
    ``bm25``, ``manifest``, ``embedding_cache`` (with its WAL files) or ``other``."""
    if name.startswith(_BM25[0]):
        return "bm25"
    if name.startswith(_MANIFEST[0]):
        return "manifest"
    if name.startswith(_EMBEDDING_CACHE):
        return "embedding_cache"
    return "other"


def collections_in(folder: Path, store: str) -> list[str]:
    """The collections of ``store`` with a manifest in ``folder`` (file names only), sorted."""
    prefix, suffix = f"{_MANIFEST[0]}{store}_", _MANIFEST[1]
    if not folder.is_dir():
        return []
    return sorted(file.name[len(prefix):-len(suffix)] for file in folder.iterdir()
                  if file.name.startswith(prefix) and file.name.endswith(suffix)
                  and "@" not in file.name  # a tenant's own manifest of a collection
                  and len(file.name) > len(prefix) + len(suffix))
