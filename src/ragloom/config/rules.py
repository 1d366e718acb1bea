"""Rules every config model shares: unknown keys and non-finite floats are errors, moved
keys say where they went, paths and globs are checked when read, secrets come inline or
from a named environment variable."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr

from ragloom.errors import ConfigError


class StrictModel(BaseModel):
    """Base for every config model: unknown keys are errors, assignments are validated, and
    a float is never NaN or infinite (``min_score = nan`` would silence every search)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


def refuse_moved_keys(data: dict[str, Any], moved: dict[str, str], table: str) -> None:
    """A key written where it used to live says where it lives now."""
    for key in data:
        if key in moved:
            raise ValueError(f"'{key}' moved from {table} to {moved[key]}; write it there")


def usable_path(path: str) -> str:
    """A path setting the file system can take (a NUL byte would fail deep in ``open``)."""
    if "\0" in path:
        raise ValueError("a path cannot contain a NUL byte")
    return path


def valid_globs(globs: list[str]) -> list[str]:
    """``globs`` if each compiles (a reversed class range such as ``[z-a]`` does not)."""
    from ragloom.globs import GlobError, compile_glob

    for glob in globs:
        try:
            compile_glob(glob)
        except GlobError as exc:
            raise ValueError(str(exc)) from None
    return globs


def resolve_secret(value: SecretStr | None, env_var: str | None, key: str) -> str | None:
    """Return the secret given inline, else read it from ``env_var``; a named but unset
    variable is a ConfigError (naming the variable, never a value)."""
    if value is not None:
        return value.get_secret_value()
    if env_var is None:
        return None
    secret = os.environ.get(env_var)
    if not secret:
        raise ConfigError(f"key '{key}' names environment variable {env_var!r}, which is not set")
    return secret
