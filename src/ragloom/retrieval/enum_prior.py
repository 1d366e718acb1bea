"""A question asking which values something can take goes to the enumeration listing them.

"What statuses can an entry have", "which roles can a member have", "which two-factor
methods can a user set up": the answer is an enumeration (a Rust, TypeScript, PHP, Java or
Kotlin ``enum``, a Python ``Enum`` / Django ``TextChoices`` class or a model field with
``choices=``, a Rails ``enum :status``, a TypeScript union of string literals, a Go
``const ( ... )`` block, an UPPER_CASE constant holding a literal list or map, a frozen or
``as const`` JavaScript object, two class constants in a row), while the handlers that
switch over its values share the question's words and come first. So when a query asks
"what / which ... kinds / types / statuses / states / roles / levels / modes / categories /
methods / policies":

- the enumerations the question names come first: one whose name (its symbol, the names
  it defines, a choices field's name) shares a word with the query, ``Type`` / ``Kind`` /
  ``Enum`` / ``Choices`` aside (they name no subject), a plural word counting singular, a
  name word counting for a query word it starts or that starts it, the way code
  abbreviates and derives (``OrgPolicyType`` for "organization policies",
  ``MembershipType`` for "roles of a member", ``EntryStatusUnread`` for "statuses of an
  entry"); when none is named, every enumeration does;
- every other code candidate is multiplied by ``NAMED_WEIGHT`` (documents by
  ``NAMED_DOCUMENT_WEIGHT``) when an enumeration is named, by ``ENUM_WEIGHT`` when none is
  (documents then keep their score): a list in the README answers such a question too.

Such an enumeration is often a small file far down both rankings (the words of the question
are those of the code using it), so the searcher looks ``ENUM_DEPTH`` times deeper for
these questions (``search_depth``) and ranks the named enumerations found there with the
candidates (``named_enumerations``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ragloom.retrieval.model_prior import query_words
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.tokenize import identifier_parts
from ragloom.types import SearchResult

#: How much the rank score of a code candidate that is not the enumeration asked for counts.
ENUM_WEIGHT = 0.5
#: How much the rank score of any other code candidate counts when the query names an
#: enumeration some candidate defines: low enough that the enumerations come first (one
#: found deep down has a low rank score), as definitions of a name the query uses do.
NAMED_WEIGHT = 0.1
#: The same for a document: a page listing the values answers too, and a docs question
#: ("which login methods are supported") wants it; a much better page stays above.
NAMED_DOCUMENT_WEIGHT = 0.3
#: How many times deeper than ``candidate_k`` each retriever looks for such a question.
ENUM_DEPTH = 4
_ASKS = re.compile(r"\b(?:what|which)\s+(?:[\w-]+\s+){0,3}?(?:kinds?|types?|sorts?|statuse?s|states|"
                   r"roles|levels|modes|categories|methods|policies)\b", re.IGNORECASE)
_ENUM = (r"^[ \t]*(?:pub(?:\([^)]*\))?\s+|export\s+|public\s+|private\s+)?(?:const\s+)?"
         r"enum\s+(?:class\s+)?:?(\w+)")
#: An UPPER_CASE constant holding a literal list, tuple, set or map (``STATUSES = (("up",
#: "Up"), ...)``, ``export const ROLES = [...]``, ``Object.freeze({...})``, Ruby's ``%w[...]``).
_LISTED = (r"^[ \t]*(?:export\s+)?(?:const\s+|final\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,})"
           r"[ \t]*(?::[^=\n]*)?=[ \t]*(?:Object\.freeze\(|%[wi])?[\[({]")
#: A JavaScript / TypeScript object of values, frozen or ``as const``, whatever its name.
_FROZEN = (r"^[ \t]*(?:export\s+)?const\s+(\w+)\s*(?::[^=\n]*)?=\s*"
           r"(?:Object\.freeze\(\s*\{|\{[^{}]*\}\s*as\s+const\b)")
#: A class constant (PHP, Java, Ruby inside a class): two in a row are a set of values.
_CLASS_CONSTANT = (r"^[ \t]+(?:(?:public|protected|private|final|static)\s+)*(?:const\s+)?"
                   r"([A-Z][A-Z0-9_]+)\s*=")
_DEFINES = re.compile(
    rf"{_ENUM}|"
    r"^[ \t]*class\s+(\w+)\((?:[\w.]+,\s*)*[\w.]*(?:Enum|Choices)\)|"
    r"^[ \t]*(?:export\s+)?type\s+(\w+)\s*=\s*\|?\s*(['\"])[^'\"\n]*\4\s*\||"
    r"\bchoices\s*=\s*[\[(\w]|"
    r"^const\s*\(\s*\n(?:[ \t]*(?://[^\n]*)?\n)*[ \t]*\w+[ \t]+\w*[ \t]*=[ \t]*(?:iota|\")|"
    rf"{_LISTED}|{_FROZEN}|(?:{_CLASS_CONSTANT}[^\n]*\n){{2}}",
    re.MULTILINE)
#: Names an enumeration's text gives: an enum's or Enum class's or union type's name, a
#: field assigned a ``...Field(`` (Django: its ``choices``), a listed or class constant;
#: and a Go constant in a ``const (...)`` block (its constants are the values' names).
_NAMES = re.compile(
    rf"{_ENUM}|^[ \t]*class\s+(\w+)\(|^[ \t]*(?:export\s+)?type\s+(\w+)\s*=|"
    rf"^[ \t]*(\w+)[ \t]*=[ \t]*[\w.]*Field\(|{_LISTED}|{_FROZEN}|{_CLASS_CONSTANT}",
    re.MULTILINE)
_GO_BLOCK = re.compile(r"^const\s*\(\s*\n(.*?)^\)", re.MULTILINE | re.DOTALL)
_GO_CONSTANT = re.compile(r"^[ \t]*([A-Za-z]\w*)\b", re.MULTILINE)
#: Name words that say what an enumeration is, not what it is about.
_STRUCTURAL = frozenset({"type", "kind", "enum", "enums", "choice", "choices", "value", "values"})
#: Query words that name nothing in code.
_QUESTION_WORDS = frozenset({"what", "which", "can", "could", "have", "has", "are", "the", "and",
                             "for", "does", "there", "that", "they", "them", "their", "how", "with"})


@lru_cache(maxsize=4096)
def defines_enumeration(text: str) -> bool:
    """Whether ``text`` defines an enumeration (an ``enum``, a Python ``Enum`` /
    ``Choices`` class, a field with ``choices=``, a union of string literals, a Go
    ``const (...)`` block of ``iota`` or string values, an UPPER_CASE constant holding a
    literal list or map, a frozen or ``as const`` object, two class constants in a row).
    Remembered for the last texts: a
    search asks for each candidate up to three times, the next searches for the same ones."""
    return _DEFINES.search(text) is not None


def enumeration_words(result: SearchResult) -> set[str]:
    """Lowercase words of the names an enumeration candidate gives (its symbol and the names
    its text defines), ``_STRUCTURAL`` words aside."""
    text = result.full_text or result.text
    names = [name for match in _NAMES.finditer(text) for name in match.groups() if name]
    names += [name for block in _GO_BLOCK.findall(text) for name in _GO_CONSTANT.findall(block)]
    symbols = str(result.metadata.get("symbols") or result.metadata.get("symbol") or "")
    names += [symbol.rsplit("\\", 1)[-1] for symbol in re.findall(r"[\w\\]+", symbols)]  # no namespace
    return {part for name in names for part in identifier_parts(name)} - _STRUCTURAL


def _names(word: str, asked: Iterable[str]) -> bool:
    """Whether a name word stands for one of the ``asked`` words: the same, an abbreviation
    (``org`` / ``organization``) or a derived word (``membership`` / ``member``)."""
    return any(word == q or (len(word) >= 3 and q.startswith(word))
               or (len(q) >= 5 and word.startswith(q)) for q in asked)


def asks_for_values(query: str) -> bool:
    """Whether ``query`` asks which values something takes ("which roles ...")."""
    return _ASKS.search(query) is not None


def named_enumerations(query: str, candidates: Sequence[SearchResult]) -> set[str]:
    """Ids of the candidates defining an enumeration ``query`` names (none unless it asks
    which values something takes)."""
    if not asks_for_values(query):
        return set()
    asked = {word for word in query_words(query) if len(word) >= 3} - _QUESTION_WORDS - _STRUCTURAL
    return {r.id for r in candidates if r.metadata.get("source_type") != "test"
            and defines_enumeration(r.full_text or r.text)
            and any(_names(word, asked) for word in enumeration_words(r))}


def search_depth(query: str, depth: int) -> int:
    """How deep each retriever looks for ``query``: ``ENUM_DEPTH`` times ``depth`` when it
    asks which values something takes."""
    return depth * ENUM_DEPTH if asks_for_values(query) else depth


def prior_for_enums(query: str, candidates: Sequence[SearchResult]) -> list[Factor]:
    """A factor of ``ENUM_WEIGHT`` for every code candidate but the enumerations ``query``
    names (else every enumeration), when it asks which values something takes and some
    candidate defines one."""
    if not asks_for_values(query):
        return []
    named = named_enumerations(query, candidates)
    inside = named or {r.id for r in candidates if defines_enumeration(r.full_text or r.text)}
    if not inside:
        return []
    documents, code = (NAMED_DOCUMENT_WEIGHT, NAMED_WEIGHT) if named else (1.0, ENUM_WEIGHT)

    def factor(result: SearchResult) -> float:
        if result.id in inside:
            return 1.0
        return documents if result.metadata.get("source_type") in ("docs", "text", "pdf") else code
    return [factor]
