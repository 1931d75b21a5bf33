"""Where policies come from beyond ``random`` and ``greedy``, loaded only when a run needs them.

The heuristics and the plain-Python built-ins (``lookahead``, the ceiling) live beside the compiled kernels,
and policy files, installed packages (entry points) and classes passed as objects all need numba: a run of
``random`` and ``greedy`` alone, or an answer read from the store, never imports it.  The registry
(:mod:`unosim.players.policies`) asks :func:`register_the_rest` before it refuses a name or lists the names; the
helpers below ask the engine's side only once it is loaded (before that it cannot have registered anything).
"""

from __future__ import annotations

import importlib
import sys

from . import policies


def register_the_rest() -> None:
    """Register the heuristics and plain-Python built-ins (as unosim.players.policy_api is imported) and the policies of
    installed packages (entry points)."""
    from .policy_api import load_entry_points

    load_entry_points()


def _loaded(module: str):
    """``unosim.<module>`` when it is imported (waiting for an import in progress on another thread), else None."""
    name = f"{__package__}.{module}"
    return importlib.import_module(name) if name in sys.modules else None


def load_files(paths) -> list[dict[str, str]]:
    """:func:`unosim.players.policy_api.load_policy_files` of ``paths`` ([] and nothing imported when there are none)."""
    if paths is None or (isinstance(paths, (list, tuple)) and not paths):
        return []
    from .policy_api import load_policy_files

    return load_policy_files(paths)


def as_names(names):
    """:func:`unosim.players.external.policy_names`: policy classes given as objects registered, the rest as given."""
    external = _loaded("external")
    return names if external is None else external.policy_names(names)


def files_defining(names: list[str]) -> list[str]:
    """:func:`unosim.players.policy_api.files_defining`: the loaded policy files that define any of ``names``."""
    api = _loaded("policy_api")
    return [] if api is None else api.files_defining(names)


def passed_classes(names: list[str]) -> list[tuple[str, str]]:
    """:func:`unosim.players.external.passed_classes`: (name, content hash) of the classes among ``names`` passed as objects."""
    external = _loaded("external")
    return [] if external is None else external.passed_classes(names)


policies.on_unknown_name(register_the_rest)
