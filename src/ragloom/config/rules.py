"""Rules every config model shares: unknown keys and non-finite floats are errors, types
are strict (no text or boolean for a number), every number is bounded, paths and globs
are checked when read, secrets come inline or from a named environment variable."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationInfo, field_validator

from ragloom.errors import ConfigError

#: The bound of a number whose key declares none: no key of any table (a plugin's included)
#: takes a number beyond it, so ``chunk_size = 1e23`` or a key added later cannot slip by.
NUMBER_LIMIT = 1_000_000_000


class StrictModel(BaseModel):
    """Base for every config model: unknown keys are errors, assignments are validated, a
    float is never NaN or infinite (``min_score = nan`` would silence every search), types
    are strict (``top_k = "5"`` and ``top_k = true`` are refused, not converted; a whole
    number is taken for a float), and a number whose key declares no upper bound stays
    within +-``NUMBER_LIMIT``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False,
                              strict=True)

    @field_validator("*", mode="after")
    @classmethod
    def _number_within_limit(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and info.field_name:
            declared = cls.model_fields[info.field_name].metadata
            bounded = any(hasattr(rule, "le") or hasattr(rule, "lt") for rule in declared)
            if not bounded and abs(value) > NUMBER_LIMIT:
                raise ValueError(f"out of range: a number in the config is at most "
                                 f"{NUMBER_LIMIT:,} in size unless its key says otherwise")
        return value


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
