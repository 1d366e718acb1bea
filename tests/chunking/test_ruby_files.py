"""Ruby's files without a `.rb` extension (`Gemfile`, `Rakefile`, `config.ru`, `*.gemspec`,
`*.rss.builder` and `*.json.jbuilder` views) are Ruby, chunked by its grammar: a Rails
application's dependencies, tasks and feed views were plain-text windows (issue 36)."""

from __future__ import annotations

import pytest

from helpers import hash_config
from ragloom.chunking.registry import FileChunker, language_for_path
from ragloom.indexing.source_types import SourceTypes

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")


@pytest.mark.parametrize("path", ["Gemfile", "Rakefile", "config.ru", "shop.gemspec", "Vagrantfile",
                                  "app/views/posts/index.rss.builder",
                                  "app/views/posts/show.json.jbuilder", "lib/tasks/cli.thor"])
def test_ruby_files_by_name_and_extension(path: str) -> None:
    assert language_for_path(path) == "ruby"
    assert SourceTypes().of(path, "ruby") == "code"


@pytest.mark.parametrize("path", ["gemfile", "Gemfile.lock", "docs/Rakefile.md", "Gemfile.txt"])
def test_other_files_keep_their_language(path: str) -> None:
    assert language_for_path(path) != "ruby"


def test_a_rakefile_is_chunked_by_its_tasks() -> None:
    source = ("require_relative 'config/application'\n\nRails.application.load_tasks\n\n"
              "# Rebuilds the search index from scratch.\n"
              "def reindex(scope)\n  scope.find_each(&:reindex!)\nend\n\n"
              "# Removes sessions older than a month.\n"
              "def purge_sessions\n  Session.where('updated_at < ?', 1.month.ago).delete_all\nend\n")
    chunks = FileChunker(hash_config(chunk_size=120, chunk_overlap=24)).chunk(source, "Rakefile")
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbol"))
            for c in chunks] == [(1, 3, None), (5, 8, "reindex"), (10, 13, "purge_sessions")]
    assert {c.metadata["language"] for c in chunks} == {"ruby"}
