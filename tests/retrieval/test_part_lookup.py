"""A question naming a part of the application looks up that part's own best chunks
(``retrieval.part_lookup``) and offers them to the priors as comparable matches."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import ragloom.retrieval.searcher as searcher_module
from helpers import hash_config, write
from ragloom import RAGConfig, RAGEngine
from ragloom.filters import Condition, compile_filters
from ragloom.retrieval import part_lookup
from ragloom.retrieval.part_lookup import (
    first_files,
    look_up_parts,
    part_conditions,
    part_missing,
    with_part_chunks,
)
from ragloom.retrieval.path_prior import PARTS
from ragloom.retrieval.sparse import SparseIndex
from ragloom.types import SearchResult

PART = {part.name: part for part in PARTS}
PATHS = ["app/Models/Tag.php", "database/migrations/2019_create_tags_table.php",
         "database/factories/TagFactory.php", "bookmarks/migrations/0002_auto.py", "README.md"]


def test_a_part_is_the_paths_naming_it_and_not_what_it_is_unlike() -> None:
    conditions = part_conditions(PART["migrations"], PATHS)
    path, language = conditions
    assert isinstance(path, Condition) and path.operator == "$in"
    assert list(path.value) == ["database/migrations/2019_create_tags_table.php",
                                "bookmarks/migrations/0002_auto.py"]
    assert language.key == "language" and language.operator == "$nin" and "vue" in language.value
    assert part_conditions(PART["docs"], PATHS) == compile_filters({"source_type": "docs"})
    assert part_conditions(PART["jobs"], PATHS) == []  # no file is inside it


def _index(chunks: dict[str, tuple[str, dict[str, str]]]) -> SparseIndex:
    index = SparseIndex()
    index.add(list(chunks), [text for text, _ in chunks.values()], [meta for _, meta in chunks.values()])
    return index


CODE = {"source_type": "code", "language": "python"}
MIGRATION = {"source_type": "migration", "language": "python"}
CHUNKS = {
    "views": ("def tags_table(): the table of tags created for each bookmark, tags and tags",
              {"path": "bookmarks/views/tags.py", **CODE}),
    "create": ("migrations.CreateModel(name='Tag', fields=[('name', models.CharField())])",
               {"path": "bookmarks/migrations/0002_auto.py", **MIGRATION}),
    "alter": ("migrations.AddField(model_name='tag', name='color')",
              {"path": "bookmarks/migrations/0009_tag_color.py", **MIGRATION}),
    "test": ("def test_tags_table_created(): the tags table is created",
             {"path": "bookmarks/migrations/test_0002.py", "source_type": "test", "language": "python"}),
    "rows": ("tag,created\nfood,2019", {"path": "bookmarks/migrations/tags.csv", "source_type": "data",
                                        "language": "text"}),
}


def test_the_lookup_finds_the_best_chunks_inside_the_named_part_only() -> None:
    index = _index(CHUNKS)
    assert look_up_parts("where is the table for tags created", index, [], 3) == ["create", "alter"]
    assert look_up_parts("where is the table for tags created", index, [], 1) == ["create"]
    # a question about tests counts tests among the part's chunks; a data row never
    assert look_up_parts("which test checks the table for tags", index, [], 3) == ["test", "alter", "create"]


def test_a_question_for_one_migration_looks_up_migrations_themselves() -> None:
    """A command whose path says ``migrate`` is inside the migrations part by its path, but
    no migration: a question asking for one migration gets the migrations, another
    question about the part the best of the part."""
    command = ("def handle(): the tags table created, tags tags tags",
               {"path": "bookmarks/management/commands/migrate_tags.py", **CODE})
    index = _index({**CHUNKS, "command": command})
    assert look_up_parts("where is the table for tags created", index, [], 2) == ["create", "alter"]
    assert look_up_parts("which table stores the tags", index, [], 2) == ["command", "alter"]
    without = _index({"views": CHUNKS["views"], "command": command})  # no migration at all
    assert look_up_parts("where is the table for tags created", without, [], 2) == ["command"]


def test_no_lookup_without_a_part_named_or_with_none_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(CHUNKS)
    searched: list[str] = []
    real = index.search
    monkeypatch.setattr(index, "search",
                        lambda query, *args, **kw: searched.append(query) or real(query, *args, **kw))
    assert look_up_parts("how are tags shown next to a bookmark", index, [], 3) == []
    assert look_up_parts("where is the table for tags created", index, [], 0) == []
    assert searched == []
    assert look_up_parts("where is the table for tags created", index, compile_filters(
        {"path": {"$ne": "bookmarks/migrations/0002_auto.py"}}), 3) == ["alter"]  # the caller's filters hold


def test_found_chunks_enter_the_window_at_the_value_of_its_part_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(part_lookup, "PART_RANK", 2)
    kept = [("a", 1.0), ("b", 0.8), ("c", 0.5), ("d", 0.1)]
    ranked, window = with_part_chunks(kept, {"a", "b", "c"}, ["d", "x", "a"])
    assert ranked == [("a", 1.0), ("b", 0.8), ("d", 0.8), ("x", 0.8), ("c", 0.5)]
    assert window == {"a", "b", "c", "d", "x"}
    assert with_part_chunks(kept, {"a", "b", "c"}, []) == (kept, {"a", "b", "c"})
    # the window's others keep their order, a candidate past its values (an enumeration
    # named deeper) included
    kept = [("a", 1.0), ("b", 0.8), ("c", 0.5), ("n", 0.9)]
    assert with_part_chunks(kept, {"a", "b", "c", "n"}, ["x"])[0] \
        == [("a", 1.0), ("b", 0.8), ("x", 0.8), ("c", 0.5), ("n", 0.9)]


def _tags_project(project: Path) -> None:
    """30 views sharing the question's words, and the migration creating the table, which
    says only ``Tag``."""
    for n in range(30):
        write(project, f"bookmarks/views/tags{n}.py", f"def show_tags{n}(request):\n"
              f"    # the table of tags created for a bookmark: tags, tags and tags\n    return tags\n")
    write(project, "bookmarks/migrations/0002_auto_20190629_2303.py",
          "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
          "    operations = [\n        migrations.CreateModel(\n            name=\"Tag\",\n"
          "            fields=[(\"name\", models.CharField(max_length=64))],\n        ),\n    ]\n")


def _first_paths(project: Path, config_of: Callable[..., RAGConfig]) -> list[str]:
    """The first result's path for the table question with the lookup on (3), then off."""
    first = []
    for lookup in (3, 0):
        with RAGEngine(config_of(retrieval={"candidate_k": 20, "part_lookup": lookup}), project) as engine:
            engine.index_directory()
            first.append(str(engine.search("where is the table for tags created", top_k=3,
                                           mode="hybrid")[0].metadata["path"]))
    return first


@pytest.mark.parametrize("store", ["memory", "turboquant", "chroma"])
def test_engine_answers_with_a_migration_ranking_beyond_the_candidates(project: Path, store: str) -> None:
    """BM25 ranks the migration after the 30 views, beyond ``candidate_k``, and the hash
    embedder's cosine does not find it either; the lookup in the migrations part finds it,
    and the path and table priors put it first, on every local store (the lookup reads
    the BM25 index they share)."""
    _tags_project(project)
    first = _first_paths(project, lambda **overrides: hash_config(vector_store={"provider": store},
                                                                  **overrides))
    assert first[0] == "bookmarks/migrations/0002_auto_20190629_2303.py"
    assert first[1].startswith("bookmarks/views/tags")


def test_engine_on_postgres_looks_up_in_its_own_text_index(project: Path, postgres_server,
                                                           postgres_schema: str) -> None:
    """Postgres keeps its own BM25 (``postgres_bm25``): the path ``$in`` condition runs there."""
    _tags_project(project)
    first = _first_paths(project, lambda **overrides: hash_config(vector_store={
        "provider": "postgres", "url": postgres_server.url, "postgres": {"schema": postgres_schema}},
        **overrides))
    assert first[0] == "bookmarks/migrations/0002_auto_20190629_2303.py"
    assert first[1].startswith("bookmarks/views/tags")


def _result(doc_id: str, path: str, source_type: str = "code", text: str = "x = 1") -> SearchResult:
    return SearchResult(doc_id, text, {"path": path, "source_type": source_type, "language": "python"},
                        0.5, 0.5)


def test_the_first_files_are_the_results_up_to_the_count_th_file() -> None:
    results = [_result("a1", "a.py"), _result("b1", "b.py"), _result("a2", "a.py"), _result("c1", "c.py")]
    assert [r.id for r in first_files(results, 2)] == ["a1", "b1", "a2"]
    assert [r.id for r in first_files(results, 5)] == ["a1", "b1", "a2", "c1"]
    assert first_files(results, 0) == []


def test_the_lookup_runs_only_when_the_first_results_hold_nothing_of_the_part() -> None:
    views = [_result(f"v{n}", f"bookmarks/views/tags{n}.py") for n in range(5)]
    urls = _result("urls", "bookmarks/urls.py")
    assert part_missing("which url shows the tags of a bookmark", views)
    assert not part_missing("which url shows the tags of a bookmark", [urls, *views])
    assert part_missing("which url shows the tags of a bookmark", [*views, urls])  # 6th file: not shown
    again = _result("v0b", "bookmarks/views/tags0.py")  # a second part of the first file
    assert not part_missing("which url shows the tags of a bookmark", [*views[:4], again, urls])
    assert not part_missing("how are the tags of a bookmark shown", views)  # no part named
    # asking for one migration: a command named for migrating is inside the part by its
    # path, but no migration; a migration among the first results is
    command = _result("command", "bookmarks/management/commands/migrate_tasks.py")
    migration = _result("m", "bookmarks/migrations/0002_auto.py", "migration")
    assert part_missing("where is the table for tags created", [command, *views[:4]])
    assert not part_missing("where is the table for tags created", [command, migration, *views[:3]])
    assert not part_missing("which table stores the tags", [command, *views[:4]])  # names tables only


def test_the_engine_looks_up_only_for_a_part_missing_from_its_first_results(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, "bookmarks/urls.py", "urlpatterns = [path('tags/', views.tags)]  # the tags url\n")
    write(project, "bookmarks/views/tags.py", "def tags(request):\n    # shows the tags\n    return tags\n")
    looked: list[str] = []
    real = searcher_module.look_up_parts
    monkeypatch.setattr(searcher_module, "look_up_parts",
                        lambda query, *args: looked.append(query) or real(query, *args))
    engine = make_engine()
    engine.index_directory()
    engine.search("which url shows the tags", top_k=3, mode="sparse")
    engine.search("how are the tags shown", top_k=3, mode="sparse")
    assert looked == []
