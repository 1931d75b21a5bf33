"""The package's layout: modules by concern in subpackages, imports flowing one way, the old names kept.

docs/design.md draws the layout.  Every old module name (``unosim.nb``, ``unosim.external`` ...) is an
alias of the moved module (the same object), so users' imports, pickles and monkeypatches keep working."""

from __future__ import annotations

import ast
import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import unosim
from unosim._aliases import MOVED

PKG = Path(unosim.__file__).parent

#: the subpackages from the bottom up: a module may import (at import time) only from its own
#: subpackage, from a subpackage before it, or from the top-level helpers (errors, console, fmt, validate)
ORDER = ["core", "ruleset", "players", "analysis", "running", "results", "reports", "agents", "lab"]
HELPERS = {"errors", "console", "fmt", "validate", "_aliases"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(path: Path) -> set[str]:
    """The unosim modules ``path`` imports when it is imported (function bodies and TYPE_CHECKING left out)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else node.module
            if not base.startswith("unosim"):
                continue
            for alias in node.names:  # `from . import nb` imports a module; `from .x import f` the module x
                sub = f"{base}.{alias.name}"
                found.add(sub if (PKG.parent / (sub.replace(".", "/") + ".py")).exists() else base)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("unosim")}
    return found - {name}


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _top_level_imports(p) for p in PKG.rglob("*.py")}


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in ORDER:
        return ORDER.index(parts[1])
    return -1 if parts[-1] in HELPERS else len(ORDER)  # the helpers below everything, the CLI and root on top


def test_no_import_circle_between_modules():
    graph = _graph()
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                raise AssertionError("import circle: " + " -> ".join([*path[path.index(d):], d]))
            if d not in state:
                visit(d, [*path, d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


def test_subpackages_import_only_downwards():
    wrong = [f"{m} imports {d}" for m, deps in _graph().items() for d in deps
             if d != "unosim" and _layer(d) > _layer(m) and m != "unosim"]
    assert not wrong, wrong


def test_every_module_is_in_a_subpackage_or_a_named_top_level_module():
    top = {p.stem for p in PKG.glob("*.py")}
    assert top == {"__init__", "cli", "cli_types"} | HELPERS
    assert {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()} == set(ORDER)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_is_the_moved_module(old):
    module = importlib.import_module(f"unosim.{old}")
    assert module is importlib.import_module(f"unosim.{MOVED[old]}.{old}")
    assert module.__name__ == module.__spec__.name == f"unosim.{MOVED[old]}.{old}"


def test_old_names_import_as_users_wrote_them_and_pickle_alike(monkeypatch):
    from unosim.external import PythonPolicy
    from unosim.policy_api import policy
    from unosim.store import ChunkTask

    from unosim.players import external
    from unosim.results.store import make_cell

    assert PythonPolicy is external.PythonPolicy and callable(policy)
    task = ChunkTask(make_cell(), 0, 5)
    assert pickle.loads(pickle.dumps(task)) == task
    monkeypatch.setattr("unosim.store.DEFAULT_ROOT", Path("elsewhere"))  # through the old name ...
    from unosim.results import store

    assert store.DEFAULT_ROOT == Path("elsewhere")  # ... the module itself


def test_importing_unosim_imports_no_subpackage_module_but_the_registry():
    code = ("import sys, unosim\n"
            "print(sorted(m for m in sys.modules if m.startswith('unosim.') and m.count('.') > 1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "['unosim.core.enums', 'unosim.players.plugins', 'unosim.players.policies']"


def test_the_core_modules_import_in_the_order_the_cache_guard_fingerprints_them():
    """cache_guard drops the cached kernels of a changed source and of every source after it in KERNEL_SOURCES:
    that is safe only while a kernel module imports (and so may freeze into its code) modules before it alone."""
    from unosim.core import cache_guard

    order = [f"unosim.{rel[:-3].replace('/', '.')}" for rel in cache_guard.KERNEL_SOURCES]
    graph = _graph()
    core = sorted(m for m in graph if m.startswith("unosim.core.") and m.endswith("_nb") or m == "unosim.core.layout")
    assert set(core) <= set(order), sorted(set(core) - set(order))
    wrong = [f"{m} imports {d}" for m in order for d in graph[m] if d in order and order.index(d) > order.index(m)]
    assert not wrong, wrong


def test_a_name_of_the_one_module_core_is_still_found_in_nb():
    from unosim.core import layout, nb, rng_nb, round_nb

    assert nb.ST_P is layout.ST_P and nb.randint_nb is rng_nb.randint_nb
    assert nb.play_round_nb is round_nb.play_round_nb
    with pytest.raises(AttributeError, match="no_such_kernel"):
        nb.no_such_kernel  # noqa: B018
