"""Which folders ragloom owns: a marker file written when ragloom creates a folder.

Everything that deletes files on disk (a store rebuilt for a new model, ``reset()``) first
makes sure the folder is ragloom's, and then deletes only the files it wrote itself. A
non-empty folder without the marker is refused with an error naming it, so pointing
``index_dir`` or ``vector_store.path`` at a shared folder can never cost a user's file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from ragloom.errors import IndexNotFoundError, StoreError

INDEX_MARKER = ".ragloom-index"
STORE_MARKER = ".ragloom-store"


def claim_folder(folder: Path, marker: str, owner: str, create: bool = True) -> None:
    """Make sure ``folder`` is ragloom's before anything is written or deleted in it.

    A missing or empty folder is created (when ``create``) with the marker; a folder with
    the marker is ours; any other non-empty folder is refused, whatever files it holds (a
    ``segments.json`` or ``embeddings.sqlite`` of the user's is not an old index to adopt).
    """
    marker_path = folder / marker
    if marker_path.is_file():
        return
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"{owner} path {folder} is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise StoreError(
            f"{owner} folder {folder} is not empty and was not created by ragloom (no "
            f"{marker} file in it); ragloom will not write or delete files there: point the "
            f"setting at an empty or new folder")
    if not create:
        raise IndexNotFoundError(f"no index at {folder}: build one with 'ragloom index' or "
                                 f"RAGEngine(...).index_directory() (reading never creates one)")
    folder.mkdir(parents=True, exist_ok=True)
    marker_path.write_text(json.dumps({"created_by": "ragloom", "owner": owner}) + "\n",
                           encoding="utf-8")


def case_variant(names: Iterable[str], present: Iterable[str]) -> tuple[str, str] | None:
    """The first entry of ``present`` that differs from one of ``names`` only in case, with
    that name; None when there is none."""
    wanted = {name.casefold(): name for name in names}
    for entry in sorted(present):
        name = wanted.get(entry.casefold())
        if name is not None and entry != name:
            return entry, name
    return None


def refuse_case_variants(index_dir: Path, names: list[str], collection: str) -> None:
    """Refuse a collection whose index files differ only in case from another collection's
    already in ``index_dir``: on a case-insensitive file system (macOS, Windows) ``Docs``
    and ``docs`` would open, change and delete each other's files."""
    try:
        present = os.listdir(index_dir)
    except (FileNotFoundError, NotADirectoryError):
        return
    found = case_variant(names, present)
    if found is not None:
        raise StoreError(
            f"{index_dir} holds {found[0]!r}, part of the index of another collection whose name "
            f"differs from vector_store.collection_name = {collection!r} only in case "
            f"({found[1]!r} would be this one's): on a case-insensitive file system (macOS, "
            f"Windows) the two share files; choose a collection name that differs in more "
            f"than case")
