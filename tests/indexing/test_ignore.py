"""Gitignore rules as the walk applies them."""

from __future__ import annotations

from ragloom.indexing.ignore import GitIgnore, parse_gitignore


def test_a_gitignore_rule_that_is_no_glob_is_left_out_and_the_rest_apply() -> None:
    ignore = GitIgnore()
    ignore.rules.extend(parse_gitignore("[z-a]*\n*.log\n", ""))
    assert len(ignore.rules) == 1
    assert ignore.ignored("sub/app.log", is_folder=False)
    assert not ignore.ignored("zeta.py", is_folder=False)
