"""Plugins: a real distribution's entry points add a vector store and an embedder that TOML
selects by name; a module:factory path works without packaging; bad names and broken
plugins give ConfigErrors that say what is available and what failed."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import write
from ragloom import ConfigError, RAGEngine, StoreError, check_config
from ragloom.config import load_config, parse_config, tomllib
from ragloom.embeddings.registry import embedding_providers
from ragloom.readers import readers
from ragloom.retrieval.rerankers import rerankers
from ragloom.stores.registry import vector_stores
from ragloom.testing.embeddings import EmbedderConformance
from ragloom.testing.stores import StoreConformance
from registries import restored

PLUGIN = Path(__file__).resolve().parent / "plugins" / "ragloom-tiny-plugin"
REGISTRIES = (vector_stores, embedding_providers, readers, rerankers)


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[Path]:
    """The plugin laid out as an installer lays it out in site-packages: its package and a
    ``.dist-info`` holding the entry points its pyproject.toml declares."""
    site = tmp_path / "site-packages"
    shutil.copytree(PLUGIN / "src" / "ragloom_tiny_plugin", site / "ragloom_tiny_plugin")
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"ragloom_tiny_plugin-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines += [f"[{group}]", *(f"{name} = {target}" for name, target in entries.items()), ""]
    (info / "entry_points.txt").write_text("\n".join(lines))
    sys.path.insert(0, str(site))
    with restored(*REGISTRIES, relist=True):
        yield site
    sys.path.remove(str(site))
    sys.modules.pop("ragloom_tiny_plugin", None)


class TestPluginStoreConformance(StoreConformance):
    persistent = False

    @pytest.fixture
    def backend(self, installed_plugin: Path):
        return vector_stores.get("tiny")

    @pytest.fixture
    def store_factory(self, backend, tmp_path: Path):
        config = parse_config({"embedding": {"provider": "hash"}, "vector_store": {"provider": "tiny"}})
        return lambda: backend.open(config, tmp_path, None, False)


def test_toml_selects_the_plugin_store_and_embedder(installed_plugin: Path, tmp_path: Path) -> None:
    assert "tiny" in vector_stores.names() and "letters" in embedding_providers.names()
    project = tmp_path / "project"
    write(project, "app.toml", '[rag]\nembedding.provider = "letters"\n\n'
                               '[rag.vector_store]\nprovider = "tiny"\n')
    write(project, "notes/zebra.md", "# Zebra\nzebras zigzag in the zoo\n")
    write(project, "notes/apple.md", "# Apple\napples are a pleasant apple snack\n")
    with RAGEngine(load_config(project / "app.toml"), project) as engine:
        assert type(engine.store).__name__ == "TinyStore"
        assert engine.provider.model_name == "letter-counts-v1"
        assert engine.index_directory("notes").files_indexed == 2
        assert engine.search("zigzag zebras", top_k=1)[0].path == "notes/zebra.md"
    assert not list((project / ".ragloom").glob("lock*"))  # the factory said: in memory, no lock


def test_a_plugin_reader_claims_a_binary_format_and_tags_pages(installed_plugin: Path,
                                                                tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pages = ["# Intro\nairfoils and lift\n", "more on lift\nand drag\n", "# Wings\nswept wings\n"]
    (project / "paper.tpages").write_bytes(b"TPAGES\x00" + "\f".join(pages).encode())
    (project / "fake.tpages").write_bytes(b"\x00\x01not this format")
    (project / "blob.bin").write_bytes(b"TPAGES\x00but no reader for .bin")
    config = parse_config({"embedding": {"provider": "hash"}, "vector_store": {"provider": "memory"},
                           "chunk_size": 40, "chunk_overlap": 0})
    with RAGEngine(config, project) as engine:
        report = engine.index_directory()
        chunks = sorted(engine.store.get(engine.store.ids()), key=lambda c: c.metadata["chunk_index"])
    assert {s.path: s.reason for s in report.skipped} == {
        "fake.tpages": "not a tpages file (no magic bytes)", "blob.bin": "binary file (NUL bytes)"}
    assert [(c.text, c.metadata["start_line"], c.metadata["end_line"], c.metadata["page"],
             c.metadata.get("page_end"), c.metadata["language"]) for c in chunks] == [
        ("# Intro\nairfoils and lift\nmore on lift\n", 1, 3, 1, 2, "markdown"),  # crosses pages
        ("# Intro\nand drag\n", 4, 4, 2, None, "markdown"),  # the heading repeated over page 2
        ("# Wings\nswept wings\n", 5, 6, 3, None, "markdown"),
    ]
    config = parse_config({"embedding": {"provider": "hash"}, "vector_store": {"provider": "memory"},
                           "chunk_size": 1000, "chunking": {"markdown_chunking": False}})
    with RAGEngine(config, project) as engine:
        engine.index_directory()
        [whole] = engine.store.get(engine.store.ids())
    assert (whole.metadata["page"], whole.metadata["page_end"]) == (1, 3)
    assert whole.metadata["language"] == "markdown"


def test_a_plugin_reranker_reorders_the_fused_candidates(installed_plugin: Path, tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "wing lift\n")
    write(tmp_path, "b.txt", "wing lift drag speed " + "the other stuff here " * 30 + "\n")
    write(tmp_path, "c.txt", "wing wing wing wing wing lift lift lift\n")
    config = parse_config({"embedding": {"provider": "hash"}, "vector_store": {"provider": "memory"},
                           "retrieval": {"reranker": "overlap", "merge_parts": False},
                           "relevance_gate": 0.0})
    query = "wing lift drag speed"
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        response = engine.search_detailed(query, top_k=3)
    config.retrieval.reranker = None
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        fused = [r.path for r in engine.search(query, top_k=3)]
    assert fused == ["c.txt", "a.txt", "b.txt"]  # b's four query words are diluted
    assert [r.path for r in response.results] == ["b.txt", "c.txt", "a.txt"]  # 4, 2, 2 words; ties
    assert [r.rank_score for r in response.results] == [4.0, 2.0, 2.0]         # keep fused order
    assert [r.retrievers["rerank"].rank for r in response.results] == [1, 2, 3]
    assert all(r.score == r.retrievers["dense"].score for r in response.results)  # still the cosine
    assert "rerank" in response.timings_ms
    with pytest.raises(ConfigError, match=r"key 'retrieval.reranker' = 'colbert': unknown reranker; "
                                          r"valid: 'overlap'"):
        check_config(parse_config({"retrieval": {"reranker": "colbert"}}))


def test_backend_settings_live_in_sub_tables_validated_by_the_backend(installed_plugin: Path,
                                                                      tmp_path: Path) -> None:
    write(tmp_path, "app.toml", '[rag]\nembedding.provider = "hash"\n\n[rag.vector_store]\n'
                                'provider = "tiny"\n\n[rag.vector_store.tiny]\nmax_rows = 2\n')
    config = load_config(tmp_path / "app.toml")
    write(tmp_path, "a.txt", "one\n")
    write(tmp_path, "b.txt", "two\n")
    write(tmp_path, "c.txt", "three\n")
    with RAGEngine(config, tmp_path) as engine:
        assert engine.store.max_rows == 2
        with pytest.raises(StoreError, match="at most 2 rows"):
            engine.index_directory()
    with pytest.raises(ConfigError, match=r"\[rag.vector_store.tiny\]: key 'max_rows' = 0: Input should be "
                                          r"greater than or equal to 1"):
        check_config(parse_config({"vector_store": {"provider": "tiny", "tiny": {"max_rows": 0}}}))
    with pytest.raises(ConfigError, match=r"\[rag.vector_store.tiny\]: unknown key 'max_row' "
                                          r"\(did you mean 'max_rows'\?\)"):
        RAGEngine(parse_config({"embedding": {"provider": "hash"},
                                "vector_store": {"provider": "tiny", "tiny": {"max_row": 5}}}), tmp_path)
    with pytest.raises(ConfigError, match=r"\[rag.vector_store.memory\]: the 'memory' store takes no "
                                          r"settings"):
        check_config(parse_config({"vector_store": {"provider": "memory", "memory": {"size": 5}}}))
    with pytest.raises(ConfigError, match=r"\[rag.vector_store.qdrant\]: no vector store is named "
                                          r"'qdrant'; valid: 'chroma', 'mcp', 'memory', 'postgres', "
                                          r"'tiny', 'turboquant'"):
        check_config(parse_config({"vector_store": {"provider": "memory", "qdrant": {"size": 5}}}))


def test_unknown_names_list_built_ins_and_plugins(installed_plugin: Path) -> None:
    with pytest.raises(ConfigError, match=r"key 'vector_store.provider' = 'qdrant': unknown vector "
                                          r"store; valid: 'chroma', 'mcp', 'memory', 'postgres', "
                                          r"'tiny', 'turboquant'"):
        check_config(parse_config({"vector_store": {"provider": "qdrant"}}))
    with pytest.raises(ConfigError, match=r"valid: 'gemini', 'hash', 'letters', 'local'"):
        check_config(parse_config({"embedding": {"provider": "bert"}}))


def test_a_module_factory_path_needs_no_packaging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGIN / "src"))
    monkeypatch.delitem(sys.modules, "ragloom_tiny_plugin", raising=False)
    config = parse_config({"embedding": {"provider": "ragloom_tiny_plugin:letters_provider"},
                           "vector_store": {"provider": "ragloom_tiny_plugin:TinyBackend"}})
    write(tmp_path, "a.txt", "quiet quokkas\n")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        assert engine.search("quokka", top_k=1)[0].path == "a.txt"
    with pytest.raises(ConfigError, match=r"cannot load path 'ragloom_tiny_plugin:nothing_here': "
                                          r"AttributeError"):
        vector_stores.get("ragloom_tiny_plugin:nothing_here")
    path = "ragloom_tiny_plugin:letters_provider"  # a factory, not a backend
    with pytest.raises(ConfigError, match=rf"vector store '{path}' for key 'vector_store.provider': "
                                          rf"path '{path}' is <function letters_provider at .*>, "
                                          r"not a subclass of ragloom.stores.backend.StoreBackend"):
        vector_stores.get(path)


def test_a_broken_plugin_says_which_and_why(installed_plugin: Path) -> None:
    module = installed_plugin / "ragloom_tiny_plugin" / "__init__.py"
    module.write_text("raise ImportError('numpy too old')\n")
    sys.modules.pop("ragloom_tiny_plugin", None)
    with pytest.raises(ConfigError, match=r"vector store 'tiny' for key 'vector_store.provider': cannot "
                                          r"load plugin 'ragloom_tiny_plugin:TinyBackend' .*"
                                          r"ImportError: numpy too old"):
        vector_stores.get("tiny")


class TestPluginEmbedderConformance(EmbedderConformance):
    @pytest.fixture
    def provider(self, installed_plugin: Path):
        return embedding_providers.get("letters")(parse_config({"embedding": {"provider": "letters"}}))
