"""The old module names (``unosim.nb``, ``unosim.external``, ``unosim.policy_api`` ...) as aliases of the modules'
places in the subpackages (``unosim.core.nb`` ...): the very same module object under both names, imported
only when first asked for (``import unosim`` imports nothing heavy), so that every import, pickle and
monkeypatch written against the flat layout keeps working.  Installed by ``unosim/__init__.py``."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: old module name under unosim -> the subpackage that holds it now
MOVED = {
    "answers": "analysis",
    "backends": "results",
    "charts": "reports",
    "decks": "ruleset",
    "enums": "core",
    "experiments": "lab",
    "external": "players",
    "game": "agents",
    "heuristics_nb": "core",
    "io": "results",
    "loading": "results",
    "lookahead": "players",
    "match": "running",
    "nb": "core",
    "outdir": "results",
    "pages": "reports",
    "paired": "analysis",
    "plugins": "players",
    "policies": "players",
    "policy_api": "players",
    "report": "reports",
    "rl": "agents",
    "rounds": "running",
    "rules": "ruleset",
    "rundir": "results",
    "scenario": "running",
    "sim": "running",
    "skill": "lab",
    "skill_scale": "lab",
    "stats": "analysis",
    "steps": "running",
    "store": "results",
    "studies": "lab",
    "teams": "analysis",
    "tidy": "analysis",
    "tournament": "lab",
    "trace": "running",
    "tune": "lab",
}


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``unosim.<old name>`` and loads it as the module of its new place."""

    def __init__(self) -> None:
        self.specs: dict = {}  # the moved modules' own specs, by their new names

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, name = fullname.partition(".")
        if prefix == "unosim" and name in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        name = spec.name.partition(".")[2]
        module = importlib.import_module(f"unosim.{MOVED[name]}.{name}")
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # the import system has set __spec__ to the alias's spec: give the module its own back
        module.__spec__ = self.specs[module.__name__]


def install() -> None:
    """Put the finder on sys.meta_path (once)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(AliasFinder())
