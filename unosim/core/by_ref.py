"""A round's tuple of arrays passed to a compiled call by its address, not by value.

numba passes a tuple of arrays to a function it does not inline as every field of every array: the round's
22 arrays (``g``, see nb.play_round_nb) are about 170 machine words, stored by the caller and read back by the
callee at each call.  Measured alone in a loop (2026-12-07): 34 ns a call with the tuple, 2.6 ns with its
address (in whole rounds: level, jump_in 2-6% faster; docs/benchmarks.md).  ``ref(g)`` stores the tuple once
in the calling function's frame and gives its address; the callee reads the arrays it uses with ``deref(gp)``.

The address is valid only while the function that made it runs and the tuple's arrays live: pass it down to
callees, never keep it in an array or return it.  numba frees a local tuple (and the arrays only it still holds)
after its last use in the function, which may be the ``ref`` call itself: a function that made the tuple calls
``keep(g)`` after its last use of the address.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def ref(typingctx, tup):
    """The address of a copy of ``tup`` in the calling function's frame (a ``CPointer`` of its type)."""
    sig = types.CPointer(tup)(tup)

    def codegen(context, builder, signature, args):
        model = context.data_model_manager[signature.args[0]]
        return cgutils.alloca_once_value(builder, model.as_data(builder, args[0]))

    return sig, codegen


@intrinsic
def deref(typingctx, ptr):
    """The tuple at the address that ``ref`` gave."""
    sig = ptr.dtype(ptr)

    def codegen(context, builder, signature, args):
        return context.data_model_manager[signature.return_type].load_from_data_pointer(builder, args[0])

    return sig, codegen


@intrinsic
def keep(typingctx, tup):
    """Nothing; a use of ``tup``, so that numba keeps it (and its arrays) alive up to here."""
    sig = types.none(tup)

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()

    return sig, codegen
