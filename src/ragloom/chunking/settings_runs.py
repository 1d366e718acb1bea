"""A Python settings module's long run of assignments, cut between settings and named by
them (the Python counterpart of ``treesitter.tables``).

Django, Flask and Celery applications keep their options as one long run of module-level
assignments, each under the comment documenting it, grouped under section comments:
``# Email`` above ``EMAIL_HOST = os.environ.get("EMAIL_HOST")``, ``if env.bool(...):``
blocks, multi-line ``CACHES = {...}`` dicts. Cut by lines into full windows, a part holds
a dozen settings of several sections, often ends on the comment documenting the next
setting or inside a dict, and names nothing (no symbol): a question asks about one setting
("how do I stop people registering", "how many failed logins lock a user out") and the
window's other settings drown it.

So a module-level run too big for one chunk whose statements are mostly assignments
(``SETTINGS_SHARE`` of at least ``MIN_SETTINGS``) is cut between statements, never inside
one: each statement takes the comment lines above it (what documents it), a section (a
comment after a blank line, or the run's start) stays one part when it fits a window,
a bigger one is packed statement by statement up to a window, and small sections share a
part up to half a window (``SECTION_SHARE``), never across a heading (a comment with a
blank line under it: ``# Axes configuration`` above the settings it heads). A dict of options over a window
(``REST_FRAMEWORK = {...}``) is cut between its entries as ``treesitter.tables`` cuts a
table (``group_entries``), each part named ``REST_FRAMEWORK.DEFAULT_THROTTLE_RATES``.
Each part's ``symbols`` names the UPPER_CASE settings it assigns
(``FEATURES['ALLOW_REGISTRATION']`` as ``FEATURES.ALLOW_REGISTRATION``), so the header the
embedder and BM25 read names them and a query naming one finds its part.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ragloom.chunking.base import Piece, SourceLines
from ragloom.chunking.definitions import DefinitionSplitter, Span
from ragloom.chunking.treesitter.tables import ENTRY_LINES, group_entries

#: Fewer statements than this are a script's lines, not a settings run.
MIN_SETTINGS = 8
#: Share of a run's statements that must assign (directly, or inside ``if`` / ``try``).
SETTINGS_SHARE = 0.6
#: Share of the window small whole sections pack to. A quarter (a table's entries') parted
#: a section's settings when a comment after a blank line sits among them (babybuddy's
#: config questions 0.778 at a quarter, 0.827 at a half; docs/benchmarks.md).
SECTION_SHARE = 0.5
#: A part names at most this many settings (a header names the first few anyway).
MAX_NAMES = 24


def settings_pieces(splitter: DefinitionSplitter, source: SourceLines, body: Sequence[ast.stmt],
                    first: int, last: int, extra: dict[str, object]) -> list[Piece] | None:
    """Parts of the module-level run of lines ``first..last`` cut between its settings
    (module doc); None when the run is not mostly assignments."""
    statements = [node for node in body if first <= node.lineno <= last]
    if len(statements) < MIN_SETTINGS \
            or sum(map(_assigns, statements)) < SETTINGS_SHARE * len(statements):
        return None
    spans = _statement_spans(source, statements, first, last)
    sections: list[list[tuple[Span, ast.stmt]]] = []
    headings: list[bool] = []
    for (span, opens), node in zip(spans, statements):
        if opens or not sections:
            sections.append([])
            headings.append(opens and source.is_blank(node.lineno - 1))
        sections[-1].append((span, node))
    whole: list[Span] = []
    pieces: list[Piece] = []
    for section, heading in zip(sections, headings):
        members = [span for span, _ in section]
        if heading:  # `# Email` above a blank line heads the sections up to the next one
            pieces += _small(splitter, source, whole)
            whole = []
        if splitter.fits(source, members[0].first, members[-1].last):
            whole.append(_joined(members, extra))
            continue
        pieces += _small(splitter, source, whole)
        whole = []
        pieces += _packed(splitter, source, section, extra)
    pieces += _small(splitter, source, whole)
    return pieces


def _small(splitter: DefinitionSplitter, source: SourceLines, spans: list[Span]) -> list[Piece]:
    """Whole sections in order, those under ``SECTION_SHARE`` of the window sharing parts up
    to it."""
    if not spans:
        return []
    none = splitter.headers([])
    pieces = splitter.group(source, spans, [none] * len(spans), splitter.window * SECTION_SHARE)
    for piece in pieces:  # a group opened by an unnamed span is named by its first setting
        if "symbol" not in piece.extra and piece.extra.get("symbols"):
            piece.extra["symbol"] = str(piece.extra["symbols"]).split(", ")[0]
    return pieces


def _packed(splitter: DefinitionSplitter, source: SourceLines, section: list[tuple[Span, ast.stmt]],
            extra: dict[str, object]) -> list[Piece]:
    """A section over a window: its statements packed up to a window each part, a
    statement over a window alone cut between its entries (a dict of options) or lines."""
    none = splitter.headers([])
    pieces: list[Piece] = []
    run: list[Span] = []
    for span, node in section:
        if not splitter.fits(source, span.first, span.last):
            if run:
                pieces.append(_piece(source, run, extra))
                run = []
            entries = _entry_spans(source, span, node, extra)
            if entries is not None:  # entries of a few lines each as a table's, smaller by half
                lines = span.last - span.first + 1
                share = splitter.quarter if lines >= ENTRY_LINES * len(entries) else None
                pieces += group_entries(splitter, source, entries, none, share)
                continue
            pieces += splitter.split(source, [(n, n) for n in range(span.first, span.last + 1)],
                                     none, none, _joined([span], extra).extra)
            continue
        if run and not splitter.fits(source, run[0].first, span.last):
            pieces.append(_piece(source, run, extra))
            run = []
        run.append(span)
    if run:
        pieces.append(_piece(source, run, extra))
    return pieces


def _piece(source: SourceLines, spans: list[Span], extra: dict[str, object]) -> Piece:
    joined = _joined(spans, extra)
    return source.piece(joined.first, joined.last, **joined.extra)


def _joined(spans: list[Span], extra: dict[str, object]) -> Span:
    """One span over ``spans`` named by the settings they assign."""
    names = list(dict.fromkeys(name for span in spans
                               for name in str(span.extra.get("symbols", "")).split(", ") if name))
    named = dict(extra)
    named.pop("symbol", None)
    if names:
        named["symbol"] = names[0]
        if len(names) > 1:
            named["symbols"] = ", ".join(names[:MAX_NAMES])
    return Span(spans[0].first, spans[-1].last, named)


def _statement_spans(source: SourceLines, statements: list[ast.stmt], first: int,
                     last: int) -> list[tuple[Span, bool]]:
    """Each statement's lines with the comments above it (from the first written line
    after the statement before), whether it opens a section, and the settings it names
    (in ``extra['symbols']``); lines after the last statement end it."""
    spans: list[tuple[Span, bool]] = []
    cursor = first
    for index, node in enumerate(statements):
        if spans and node.lineno < cursor:  # `A = 1; B = 2`: one line, one span
            span, opens = spans[-1]
            names = ", ".join(filter(None, [str(span.extra["symbols"]), *_names(node)]))
            end = max(span.last, last if index == len(statements) - 1 else node.end_lineno or 0)
            spans[-1] = (Span(span.first, end, {"symbols": names}), opens)
            cursor = end + 1
            continue
        start = cursor
        while start < node.lineno and source.is_blank(start):
            start += 1
        end = node.end_lineno or node.lineno
        if index == len(statements) - 1:
            end = max(end, last)
        opens = index == 0 or (start < node.lineno and start > first and source.is_blank(start - 1)
                               and source.line_texts[start - 1].lstrip().startswith("#"))
        names = ", ".join(dict.fromkeys(_names(node)))
        spans.append((Span(start, end, {"symbols": names}), opens))
        cursor = end + 1
    return spans


def _entry_spans(source: SourceLines, span: Span, node: ast.stmt,
                 extra: dict[str, object]) -> list[Span] | None:
    """The entries of a setting assigned a dict of at least ``MIN_SETTINGS`` string keys,
    each on lines of its own (``REST_FRAMEWORK = {'PAGE_SIZE': 20, ...}``), as spans
    named ``REST_FRAMEWORK.PAGE_SIZE``: the comments above an entry open it, the lines
    opening the dict the first, its closing lines end the last; None for anything else."""
    names = _names(node)
    value = getattr(node, "value", None)
    if not isinstance(node, ast.Assign) or len(names) != 1 or not isinstance(value, ast.Dict) \
            or len(value.keys) < MIN_SETTINGS:
        return None
    spans: list[Span] = []
    start = span.first
    previous = 0
    for key, item in zip(value.keys, value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) \
                or key.lineno <= previous:
            return None
        end = item.end_lineno or item.lineno
        spans.append(Span(start, end, {**extra, "symbol": f"{names[0]}.{key.value}"}))
        start, previous = end + 1, end
    last = spans[-1]
    spans[-1] = Span(last.first, span.last, last.extra)
    return spans


def _assigns(node: ast.stmt) -> bool:
    """Whether ``node`` assigns (or only holds assignments, in an ``if`` / ``try``)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return True
    if isinstance(node, (ast.If, ast.Try)):
        inner = [*node.body, *node.orelse]
        return bool(inner) and any(_assigns(s) for s in inner)
    return False


def _names(node: ast.stmt) -> list[str]:
    """The UPPER_CASE settings ``node`` assigns, in order, nested ``if`` / ``try`` too."""
    if isinstance(node, ast.Assign):
        return [n for target in node.targets for n in _target_names(target)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return _target_names(node.target)
    if isinstance(node, (ast.If, ast.Try)):
        handlers = [s for h in getattr(node, "handlers", []) for s in h.body]
        return [n for s in [*node.body, *node.orelse, *handlers] for n in _names(s)]
    return []


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id] if _setting(target.id) else []
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _target_names(element)]
    if isinstance(target, ast.Subscript):  # FEATURES['KEY'] = ..., CACHES['default'][...]
        keys: list[str] = []
        node: ast.expr = target
        while isinstance(node, ast.Subscript):
            key = node.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return []
            keys.insert(0, key.value)
            node = node.value
        if isinstance(node, ast.Name) and _setting(node.id):
            return [".".join([node.id, *keys])]
    return []


def _setting(name: str) -> bool:
    """Whether ``name`` is written as a setting: UPPER_CASE, not private."""
    return name.isupper() and not name.startswith("_")
