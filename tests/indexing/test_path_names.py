"""Paths in metadata, citations and prompts are never absolute machine paths (issue 38,
item 4): a folder outside base_dir is indexed as ``../<its name>/...``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.prompt import format_context


def app(folder: Path) -> Path:
    write(folder, "Services/UploadService.php", "<?php\nclass UploadService {\n  function store($upload) {\n"
          "    return $this->disk->put($upload);\n  }\n}\n")
    write(folder, "Models/Song.php", "<?php\nclass Song {\n  public $title;\n}\n")
    return folder


def engine_at(base: Path, store: str = "turboquant") -> RAGEngine:
    base.mkdir(parents=True, exist_ok=True)
    return RAGEngine(hash_config(vector_store={"provider": store}, relevance_gate=False), base)


def test_a_folder_outside_base_dir_is_named_by_its_name(tmp_path: Path) -> None:
    outside = app(tmp_path / "home" / "me" / "koel" / "app")
    with engine_at(tmp_path / "service") as engine:
        report = engine.index_directory(outside)
        assert report.files_indexed == 2
        paths = engine.get_all_indexed_paths()
        assert paths == ["../app/Models/Song.php", "../app/Services/UploadService.php"]
        results = engine.search("upload disk store", top_k=3)
        block = format_context(results)
        assert "File: ../app/Services/UploadService.php" in block
        everything = json.dumps([r.to_dict() for r in results]) + block
        assert str(tmp_path) not in everything and "/home/me" not in everything
        # unchanged on a second run; a deleted file is removed; a changed one re-indexed
        assert engine.index_directory(outside).files_unchanged == 2
        (outside / "Models/Song.php").unlink()
        write(outside, "Services/UploadService.php", "<?php\nclass UploadService {}\n")
        again = engine.index_directory(outside)
        assert (again.files_indexed, again.files_removed) == (1, 1)
        assert engine.get_all_indexed_paths() == ["../app/Services/UploadService.php"]
        assert engine.status().files_pending == 0
        assert engine.delete_documents_by_path(outside / "Services/UploadService.php") > 0
        assert engine.get_all_indexed_paths() == []


def test_ids_do_not_depend_on_where_the_folder_lives(tmp_path: Path) -> None:
    first = app(tmp_path / "a" / "app")
    second = tmp_path / "elsewhere" / "deeper" / "app"
    shutil.copytree(first, second)
    ids = []
    for base, folder in ((tmp_path / "one", first), (tmp_path / "two", second)):
        with engine_at(base, "memory") as engine:
            engine.index_directory(folder)
            ids.append(sorted(engine.store.ids()))
    assert ids[0] == ids[1] and ids[0]


def test_two_outside_folders_of_one_name_are_kept_apart(tmp_path: Path) -> None:
    one = app(tmp_path / "x" / "app")
    two = app(tmp_path / "y" / "app")
    with engine_at(tmp_path / "service") as engine:
        engine.index_directory(one)
        engine.index_directory(two)
        paths = engine.get_all_indexed_paths()
        assert "../app/Models/Song.php" in paths and "../app-2/Models/Song.php" in paths
        assert engine.index_directory(one).files_unchanged == 2
        assert engine.index_file(two / "Models/Song.php").files_unchanged == 1


def test_an_outside_file_is_named_under_its_folder(tmp_path: Path) -> None:
    note = write(tmp_path / "Users" / "me" / "notes", "todo.md", "# Todo\n\nShip it.\n")
    with engine_at(tmp_path / "service") as engine:
        engine.index_file(note)
        assert engine.get_all_indexed_paths() == ["../notes/todo.md"]
