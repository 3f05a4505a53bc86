# Why this exists: an environment an attacker has touched (`--environment-patch`, README of
# eval/agentdojo) is AgentDojo's own environment with the patch deep-merged into it, then checked
# by the environment's own model class, so the tools and the judges see a proper environment; a
# patch that does not fit is refused by name (a field the environment does not have, a value of
# the wrong type), never half-applied.
from typing import Any

from pydantic import BaseModel, ValidationError


class PatchDoesNotFit(ValueError):
    """The session's environment patch is not a valid change of the suite's environment."""


def merged(base: Any, patch: Any) -> Any:
    """`patch` deep-merged into `base`: objects key by key, lists appended, anything else replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = merged(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(patch, list):
        return [*base, *patch]
    return patch


def ignored_paths(given: Any, kept: Any, path: str = "") -> list[str]:
    """The keys of `given` that validation dropped from `kept` (fields the environment does not have)."""
    if isinstance(given, dict) and isinstance(kept, dict):
        out: list[str] = []
        for key, value in given.items():
            where = f"{path}.{key}" if path else str(key)
            out += ignored_paths(value, kept[key], where) if key in kept else [where]
        return out
    if isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        return [p for i, (g, k) in enumerate(zip(given, kept)) for p in ignored_paths(g, k, f"{path}.{i}")]
    return []


def problem(err: Any) -> str:
    """One pydantic error as `where: what (got value)`; a missing field has no value to show."""
    where = ".".join(str(p) for p in err["loc"])
    got = "" if err["type"] == "missing" else f" (got {err.get('input')!r})"[:200]
    return f"{where}: {err['msg']}{got}"


def patched(suite_name: str, environment: BaseModel, patch: Any) -> BaseModel:
    """The environment with `patch` merged in, re-validated by its own model class so the judges see a proper one."""
    if not isinstance(patch, dict):
        raise PatchDoesNotFit(f"the {suite_name} environment patch must be a JSON object, got {type(patch).__name__}")
    data = merged(environment.model_dump(), patch)
    model = type(environment)
    try:
        result = model.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(problem(err) for err in e.errors())
        raise PatchDoesNotFit(f"the environment patch does not fit the {suite_name} environment ({model.__name__}): {problems}") from None
    ignored = ignored_paths(data, result.model_dump())
    if ignored:
        raise PatchDoesNotFit(f"the environment patch does not fit the {suite_name} environment ({model.__name__}): it has no field {', '.join(ignored)}")
    return result
