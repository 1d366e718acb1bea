"""How a config mistake reads: one line per problem naming where (file and table), the key
and its value, what is wrong, and a "did you mean" for a likely typo of a key or a value."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from ragloom.errors import did_you_mean

#: Keys whose values are credentials or name where they are: shown as ``***`` in errors.
_SECRET_KEY = re.compile(r"(?i)key|token|secret|passw|credential|auth")

#: What a strict type needs, for the messages of the pydantic errors that say it.
_NEEDS = {"int_type": "a whole number", "float_type": "a number", "bool_type": "true or false",
          "string_type": "text in quotes"}
_KINDS = {int: "a whole number", float: "a fraction", list: "a list", dict: "a table"}


def describe_errors(exc: ValidationError, source: str, model: type[BaseModel]) -> str:
    """One line per pydantic error of validating ``model``: where, which key, which value,
    what is wrong."""
    from ragloom.security import redact_secrets  # its patterns compile on import: only here

    lines = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        key = ".".join(loc)
        message = _message(error)
        if not key:
            lines.append(f"{source}: {message}")
            continue
        if error["type"] == "extra_forbidden":
            known = _keys_at(model, loc[:-1])
            hint = _new_place(model, loc) or did_you_mean(loc[-1], known) or _store_table(model, loc)
            lines.append(f"{source}: unknown key '{key}'{hint}")
            continue
        value = error.get("input")
        if isinstance(value, dict):
            lines.append(f"{source}: key '{key}': {message}")
        elif _SECRET_KEY.search(key):  # a key misplaced here must not reach a log or a terminal
            lines.append(f"{source}: key '{key}' = '***': {message}")
        else:
            lines.append(f"{source}: key '{key}' = {redact_secrets(repr(value)).text}: {message}")
    return "\n".join(lines)


def _message(error: Any) -> str:
    """pydantic's message, said in the config's terms where it helps."""
    message = str(error["msg"]).removeprefix("Value error, ")
    value, kind = error.get("input"), error["type"]
    if kind in _NEEDS:
        got = ("text" + (" (write it without quotes)" if _looks_like_a_number(value) else "")
               if isinstance(value, str) else "true or false" if isinstance(value, bool)
               else _KINDS.get(type(value), type(value).__name__))
        return f"must be {_NEEDS[kind]}, not {got}"
    if kind == "literal_error" and isinstance(value, str):
        return message + did_you_mean(value, re.findall(r"'([^']*)'", message))
    return message


def _looks_like_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text.strip().lower() in ("true", "false")
    return True


def _new_place(model: type[BaseModel], loc: list[str]) -> str:
    """``" (did you mean 'embedding.model'?)"`` for a key written beside the table it lives in
    (``embedding_model``, or ``strategy`` for ``prompt.strategy``), else ``""``."""
    current = _model_at(model, loc[:-1])
    if current is None:
        return ""
    key = loc[-1]
    for table, field in current.model_fields.items():
        inner = _model_in(field.annotation)
        if inner is None:
            continue
        for name in (key.removeprefix(f"{table}_"), key):
            if name in inner.model_fields:
                return f" (did you mean {'.'.join([*loc[:-1], table, name])!r}?)"
    return ""


def _store_table(model: type[BaseModel], loc: list[str]) -> str:
    """``" (did you mean 'vector_store.mcp.server'?)"`` for ``mcp_server`` written in a table
    whose sub-tables are per-backend settings (``VectorStoreConfig.settings``)."""
    owner = _model_at(model, loc[:-1])
    name, _, rest = loc[-1].partition("_")
    if owner is None or not rest or not any(
            typing.get_origin(field.annotation) is dict
            and typing.get_origin(typing.get_args(field.annotation)[-1]) is dict
            for field in owner.model_fields.values()):
        return ""
    return f" (did you mean {'.'.join([*loc[:-1], name, rest])!r}?)"


def _model_at(model: type[BaseModel], path: list[str]) -> Any:
    """The config model of the table at ``path`` below ``model``, else None."""
    current: Any = model
    for part in path:
        field = current.model_fields.get(part) if _is_model(current) else None
        current = None if field is None else _model_in(field.annotation)
    return current if _is_model(current) else None


def _keys_at(model: type[BaseModel], path: list[str]) -> list[str]:
    """The keys the table at ``path`` (below ``model``) takes; none when it is not a model."""
    current = _model_at(model, path)
    return [] if current is None else list(current.model_fields)


def _model_in(annotation: Any) -> Any:
    """The config model an annotation holds (``X`` of ``X | None``), else None."""
    if _is_model(annotation):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return next((arg for arg in typing.get_args(annotation) if _is_model(arg)), None)
    return None


def _is_model(candidate: Any) -> bool:
    return isinstance(candidate, type) and issubclass(candidate, BaseModel)
