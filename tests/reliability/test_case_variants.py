"""Collections whose names differ only in case never share files in one ``index_dir``: on a
case-insensitive file system (macOS, Windows) ``Docs`` and ``docs`` would open the same
store folder, manifest and BM25 index. The second one is refused, for writing and reading,
with an error naming the other's file; nothing of either is changed."""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import hash_config, write
from ragloom import RAGEngine, StoreError
from ragloom.layout import IndexLayout
from ragloom.ownership import case_variant

NAME = st.text(string.ascii_letters + string.digits + "._-", min_size=3, max_size=20)
STORES = st.sampled_from(["turboquant", "chroma", "my_store"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(STORES, NAME), min_size=2, max_size=6, unique=True), st.data())
def test_collections_that_may_share_an_index_dir_never_share_a_file_name_ignoring_case(
        indexes: list[tuple[str, str]], data: st.DataObject) -> None:
    """Over every pair (case variants of the names added): either the second is refused
    beside the first, or their files' casefolded names are all different."""
    store, name = indexes[0]
    indexes += [(store, data.draw(st.sampled_from([name.upper(), name.lower(), name.swapcase()])))]
    for first in indexes:
        for second in indexes:
            if first == second:
                continue
            present, wanted = file_names(*first), file_names(*second)
            shared = {n.casefold() for n in present} & {n.casefold() for n in wanted}
            refused = case_variant(wanted, present) is not None
            assert refused == bool(shared) and (not refused or set(present) != set(wanted)), \
                (first, second)


def file_names(store: str, collection: str) -> list[str]:
    return IndexLayout(Path("index"), collection).file_names(store)


def config_for(name: str):
    return hash_config(vector_store={"provider": "turboquant", "collection_name": name})


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*")}


@pytest.mark.parametrize("second", ["docs", "DOCS", "dOcS"])
def test_a_case_variant_of_an_indexed_collection_is_refused(tmp_path: Path, second: str) -> None:
    write(tmp_path, "a.md", "# A\nRockets launch satellites into orbit.\n")
    with RAGEngine(config_for("Docs"), tmp_path) as engine:
        engine.index_directory()
    before = listing(tmp_path)
    refused = (f"holds 'bm25_turboquant_Docs.segments', part of the index of another collection "
               f"whose name differs from vector_store.collection_name = '{second}' only in case")
    for read_only in (False, True):
        with pytest.raises(StoreError, match=refused):
            RAGEngine(config_for(second), tmp_path, read_only=read_only)
    assert listing(tmp_path) == before
    with RAGEngine(config_for("Docs"), tmp_path, read_only=True) as engine:
        assert engine.search("rockets")[0].metadata["path"] == "a.md"
    with RAGEngine(config_for("docs-2"), tmp_path) as engine:  # differing in more than case
        engine.index_directory()
    assert sorted(os.listdir(tmp_path / ".ragloom")).count("turboquant_docs-2") == 1


def test_status_of_a_case_variant_is_refused_too(tmp_path: Path) -> None:
    """``ragloom status`` reads an index's files without opening it; a case variant's
    manifest (the same file on macOS) is not taken for this collection's."""
    from ragloom.indexing.disk_status import read_status

    write(tmp_path, "a.md", "# A\nRockets launch satellites into orbit.\n")
    with RAGEngine(config_for("Docs"), tmp_path) as engine:
        engine.index_directory()
    assert read_status(config_for("Docs"), tmp_path).files == 1  # type: ignore[union-attr]
    index = tmp_path / ".ragloom"  # 'docs' finds its files, as on a case-insensitive one
    for name in ("manifest_turboquant_Docs.sqlite", "bm25_turboquant_Docs.segments"):
        os.symlink(index / name, index / name.replace("Docs", "docs"))
    assert read_status(config_for("docs"), tmp_path) is None
