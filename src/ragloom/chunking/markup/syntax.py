"""What the markup chunker knows of each template language: one row per language.

A row is a regular expression for the language's block tags (its named groups prefixed
with the row's key) and a function telling what a match does: open a block (with its
name when the language names blocks: ``{% block content %}``, ``@section('title')``),
close one, or nothing. HTML elements and comments are common to every row. Adding a
template language is adding a row.

Also here: how an ``.html`` file is told to be an application's template rather than a
document (``template_language``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

#: Where a match of a row's pattern opens or closes a block ("" ignores it).
OPEN, CLOSE = "open", "close"


@dataclass(frozen=True)
class Tag:
    """What one template tag does: ``action`` on the block ``word``, named ``name``."""

    action: str
    word: str
    name: str = ""


@dataclass(frozen=True)
class TemplateSyntax:
    """One template language: its block tags (``pattern``, read by ``classify``) and the
    comment delimiters whose content is skipped."""

    pattern: str
    classify: Callable[[re.Match[str]], Tag | None]
    comments: tuple[tuple[str, str], ...] = ()


_QUOTED = re.compile(r"""^\s*\(?\s*['"]?([\w.:/-]+)""")


def _first_name(args: str) -> str:
    """The first argument as a name (``'content'`` -> ``content``, ``:sidebar`` -> ``sidebar``)."""
    found = _QUOTED.match(args or "")
    return found.group(1).lstrip(":") if found else ""


# -- Django, Jinja, Twig: {% word args %} ... {% endword %} ---------------------------------

_JINJA_BLOCKS = frozenset({
    "block", "for", "if", "ifchanged", "ifequal", "ifnotequal", "with", "macro", "call",
    "filter", "autoescape", "spaceless", "comment", "raw", "verbatim", "blocktrans",
    "blocktranslate", "embed", "apply", "sandbox", "cache", "localize", "timezone",
    "language", "partialdef", "trans", "set", "form", "component"})
_JINJA_NAMED = frozenset({"block", "macro", "partialdef", "embed", "component"})


def _jinja(match: re.Match[str]) -> Tag | None:
    word, args = match.group("dj_word"), match.group("dj_args")
    if word.startswith("end") and word[3:] in _JINJA_BLOCKS:
        return Tag(CLOSE, word[3:])
    if word not in _JINJA_BLOCKS or word == "set" and "=" in args or word == "trans" and args.strip():
        return None  # `{% set x = 1 %}`, `{% trans "Save" %}` open nothing
    return Tag(OPEN, word, _first_name(args) if word in _JINJA_NAMED else "")


_JINJA = TemplateSyntax(r"\{%-?\s*(?P<dj_word>\w+)(?P<dj_args>.{0,2000}?)-?%\}", _jinja,
                        (("{#", "#}"),))

# -- Blade: @section('name') ... @endsection, <x-alert> ... </x-alert> ----------------------

_BLADE_BLOCKS = frozenset({
    "section", "component", "slot", "foreach", "for", "forelse", "while", "if", "unless",
    "isset", "empty", "auth", "guest", "can", "cannot", "canany", "env", "production",
    "switch", "push", "prepend", "pushonce", "prependonce", "once", "php", "verbatim",
    "error", "fragment", "session", "hassection", "sectionmissing", "props", "script"})
_BLADE_NAMED = frozenset({"section", "component", "slot", "push", "prepend", "fragment"})
#: Directives that end a section without an ``@endsection``.
_SECTION_ENDS = frozenset({"stop", "show", "overwrite", "append"})
#: One argument only: ``@section('title', 'Home')`` holds its content inline.
_ONE_ARGUMENT = re.compile(r"""^\s*\(\s*(['"])[^'"]*\1\s*\)\s*$""")


def _blade(match: re.Match[str]) -> Tag | None:
    word, args = match.group("bl_word").lower(), match.group("bl_args") or ""
    if word in _SECTION_ENDS:
        return Tag(CLOSE, "section")
    if word.startswith("end") and word[3:] in _BLADE_BLOCKS:
        return Tag(CLOSE, word[3:])
    if word not in _BLADE_BLOCKS:
        return None
    if word in ("section", "push", "prepend", "slot") and args and not _ONE_ARGUMENT.match(args):
        return None  # inline content
    if word == "php" and args or word in ("isset", "empty", "error", "props") and not args:
        return None  # `@php($x = 1)`; `@empty` inside `@forelse`
    return Tag(OPEN, word, _first_name(args) if word in _BLADE_NAMED else "")


_BLADE = TemplateSyntax(
    r"(?<![\w@])@(?P<bl_word>[A-Za-z]\w*)"
    r"(?P<bl_args>[ \t]*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?", _blade,
    (("{{--", "--}}"),))

# -- ERB: <% form_with ... do |f| %> ... <% end %> -------------------------------------------

_ERB_OPENS = re.compile(r"^(if|unless|while|until|case|for|begin)\b|\bdo\s*(\|[^|]*\|)?\s*$")
_ERB_NAMED = re.compile(r"^(?:content_for|provide)\s*\(?\s*:?['\"]?(\w+)")


def _erb(match: re.Match[str]) -> Tag | None:
    if match.group("erb_mark") == "#":
        return None
    code = match.group("erb_code").strip()
    if re.match(r"^end\b", code):
        return Tag(CLOSE, "ruby")
    if _ERB_OPENS.search(code) and not re.search(r"\bend\s*$", code):
        named = _ERB_NAMED.match(code)
        return Tag(OPEN, "ruby", named.group(1) if named else "")
    return None


_ERB = TemplateSyntax(r"<%(?P<erb_mark>[-=#]?)(?P<erb_code>.{0,2000}?)-?%>", _erb)

# -- Handlebars: {{#each items}} ... {{/each}}, {{#*inline "row"}} ------------------------


def _handlebars(match: re.Match[str]) -> Tag | None:
    word = match.group("hb_word")
    if match.group("hb_mark") == "/":
        return Tag(CLOSE, word)
    star = match.group("hb_star") == "*"
    return Tag(OPEN, word, _first_name(match.group("hb_args")) if star else "")


_HANDLEBARS = TemplateSyntax(
    r"\{\{~?(?P<hb_mark>[#/^])\s*(?P<hb_star>[*>]?)\s*(?P<hb_word>[\w.-]+)"
    r"(?P<hb_args>[^{}]{0,2000})\}\}", _handlebars, (("{{!--", "--}}"), ("{{!", "}}")))

# -- Svelte: {#if x} ... {/if}, {#snippet row(item)} ----------------------------------------


def _svelte(match: re.Match[str]) -> Tag | None:
    word = match.group("sv_word")
    if match.group("sv_mark") == "/":
        return Tag(CLOSE, word)
    return Tag(OPEN, word, _first_name(match.group("sv_args")) if word == "snippet" else "")


_SVELTE = TemplateSyntax(r"\{(?P<sv_mark>[#/])(?P<sv_word>\w+)(?P<sv_args>[^{}]{0,2000})\}",
                         _svelte)

# -- Go html/template, text/template: {{ define "content" }} ... {{ end }} ---------------------

_GO_OPENS = frozenset({"define", "block", "if", "range", "with"})


def _go(match: re.Match[str]) -> Tag | None:
    word = match.group("go_word")
    if word == "end":
        return Tag(CLOSE, "go")
    if word not in _GO_OPENS:
        return None  # `{{ else }}`, `{{ else if .x }}` go on in the same block
    return Tag(OPEN, "go", _first_name(match.group("go_args")) if word in ("define", "block") else "")


_GO = TemplateSyntax(r"\{\{-?\s*(?P<go_word>define|block|if|range|with|else|end)\b"
                     r"(?P<go_args>[^{}]{0,2000}?)-?\}\}", _go, (("{{/*", "*/}}"), ("{{- /*", "*/ -}}")))

#: Template language -> its syntax (``html`` and ``vue``: elements only).
SYNTAXES: dict[str, TemplateSyntax] = {
    "django-template": _JINJA, "twig": _JINJA, "blade": _BLADE, "erb": _ERB,
    "handlebars": _HANDLEBARS, "svelte": _SVELTE, "go-template": _GO,
    "vue": TemplateSyntax("", lambda match: None),
}

# -- templates and documents -------------------------------------------------------------

#: Folders whose ``.html`` files are an application's templates (Django, Jinja, Sphinx themes).
TEMPLATE_FOLDERS = frozenset({"templates", "_templates", "jinja2"})
#: A Django/Jinja tag or variable starting a line, or an ``{% extends %}`` anywhere: an
#: ``.html`` file holding these is a template, not a page.
_TEMPLATE_SYNTAX = re.compile(
    r"^[ \t]*(\{%-?\s*(extends|block|load|include|if|for|with|macro|import|from|set|trans|"
    r"blocktrans|url|csrf_token|comment)\b|\{\{)|\{%-?\s*extends\b", re.MULTILINE)


#: Go's ``{{ define "x" }}`` / ``{{ end }}`` actions, which Django and Jinja never write.
_GO_SYNTAX = re.compile(r"\{\{-?\s*(define\s+\"|end\s*-?\}\})")


def template_language(path: str, text: str | None = None) -> str | None:
    """``django-template`` when ``path`` is an ``.html``/``.htm`` file in a templates
    folder, or (given its ``text``) holds Django/Jinja syntax at a line start; given its
    text, ``go-template`` when that holds Go's ``{{ define "x" }}`` or ``{{ end }}`` and
    no ``{% ... %}`` tag; else None (a document for the HTML reader)."""
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.suffix.lower() not in (".html", ".htm"):
        return None
    folder = bool(TEMPLATE_FOLDERS & {part.lower() for part in pure.parts[:-1]})
    if text is not None and (folder or _TEMPLATE_SYNTAX.search(text, 0, 200_000)) \
            and _GO_SYNTAX.search(text, 0, 200_000) and "{%" not in text[:200_000]:
        return "go-template"
    if folder or text is not None and _TEMPLATE_SYNTAX.search(text, 0, 200_000):
        return "django-template"
    return None
