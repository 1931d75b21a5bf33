"""A compile-time fix for numba's IR inliner, installed when the core is imported.

``inline="always"`` makes numba splice a copy of the callee's IR into the caller
(``InlineWorker.inline_ir``, twice per call site, nested).  numba copies the callee block by
block, each block with a fresh ``copy.deepcopy`` memo.  Every variable of a block points to the
function's scope, which holds every variable of the function, so each block's copy copies the
whole scope again: the work grows with blocks x variables at every inlined site (numba issue
#8989, open).  For the round kernel that was about 10 s of a 72 s cold compile.

The fix copies the blocks with one memo, as ``copy.deepcopy`` of the whole block dict would, so
the scope is copied once.  The IR is the same and so is the compiled code (the LLVM of
``play_batch_nb`` compiled both ways differs only in the type codes inside pickled error-message
constants, which vary from process to process anyway).

It is installed only when numba's source holds the exact lines it replaces; a numba that changed
them is left as it is, and only compiles slower.
"""

from __future__ import annotations

import inspect
import textwrap

from numba.core import inline_closurecall as _icc

_ORIGINAL = _icc.InlineWorker.inline_ir

_BLOCKWISE_COPY = textwrap.indent(
    "kernel_copy.blocks = {}\n"
    "for block_label, block in the_ir.blocks.items():\n"
    "    new_block = copy.deepcopy(the_ir.blocks[block_label])\n"
    "    kernel_copy.blocks[block_label] = new_block\n", " " * 8)
_ONE_MEMO_COPY = textwrap.indent(
    "memo = {}  # unosim.core.inline_patch: one memo, the scope copied once\n"
    "kernel_copy.blocks = {label: copy.deepcopy(block, memo)\n"
    "                      for label, block in the_ir.blocks.items()}\n", " " * 8)


def _patched():
    """numba's own ``inline_ir`` with the block copy replaced, or None where its source differs."""
    try:
        source = textwrap.dedent(inspect.getsource(_ORIGINAL))
    except (OSError, TypeError):
        return None
    if source.count(_BLOCKWISE_COPY) != 1:
        return None
    namespace: dict = {}
    exec(compile(source.replace(_BLOCKWISE_COPY, _ONE_MEMO_COPY), _icc.__file__, "exec"),
         _icc.__dict__, namespace)
    fn = namespace["inline_ir"]
    fn.__qualname__ = _ORIGINAL.__qualname__
    fn.__doc__ = _ORIGINAL.__doc__
    return fn


_FIXED = _patched()


def applies() -> bool:
    """True where the installed numba has the lines this fix replaces."""
    return _FIXED is not None


def install() -> None:
    """Use the fixed ``inline_ir`` (nothing happens where the fix does not apply)."""
    if _FIXED is not None:
        _icc.InlineWorker.inline_ir = _FIXED


def uninstall() -> None:
    """Back to numba's own ``inline_ir`` (for measuring the fix)."""
    _icc.InlineWorker.inline_ir = _ORIGINAL


def installed() -> bool:
    """True while numba uses the fixed ``inline_ir``."""
    return _FIXED is not None and _icc.InlineWorker.inline_ir is _FIXED
