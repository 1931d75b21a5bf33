"""The shape of the compiled core: the longest compiled functions and the widest signatures.

    python scripts/kernel_shape.py            # the ten longest and the ten widest
    python scripts/kernel_shape.py --limit 150 --max-params 12   # exit 1 if any function exceeds them

A compiled function is one decorated with ``@njit`` (or ``numba.njit``/``jit``) anywhere under
``unosim/``.  Its length counts lines of code: the body without its docstring, blank lines and
comment-only lines.  Its width is the number of parameters.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "unosim"


def _is_compiled(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit", "generated_jit"):
            return True
    return False


def _code_lines(src_lines: list[str], fn: ast.FunctionDef) -> int:
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if not body:
        return 0
    text = "".join(src_lines[body[0].lineno - 1:fn.end_lineno])
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENDMARKER):
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines)


def compiled_functions(root: Path = ROOT) -> list[tuple[str, int, int]]:
    """(module:function, lines of code, parameters) of every compiled function under ``root``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        src = path.read_text()
        lines = src.splitlines(keepends=True)
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.FunctionDef) and _is_compiled(node):
                a = node.args
                params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                out.append((f"{path.relative_to(root.parent)}:{node.name}", _code_lines(lines, node), params))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="fail if a compiled function has more lines of code")
    ap.add_argument("--max-params", type=int, help="fail if a compiled function has more parameters")
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    fns = compiled_functions()
    print(f"{len(fns)} compiled functions")
    print("longest (lines of code):")
    for name, loc, _ in sorted(fns, key=lambda f: -f[1])[:a.top]:
        print(f"  {loc:5d}  {name}")
    print("widest (parameters):")
    for name, _, p in sorted(fns, key=lambda f: -f[2])[:a.top]:
        print(f"  {p:5d}  {name}")
    over = [f for f in fns if (a.limit and f[1] > a.limit) or (a.max_params and f[2] > a.max_params)]
    for name, loc, p in over:
        print(f"over the limits: {name} ({loc} lines, {p} parameters)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
