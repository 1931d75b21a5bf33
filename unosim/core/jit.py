"""How the core's kernels are typed and compiled: the policy slot's type (every heuristic and user policy is called
through one function argument of it), the signature shorthands of the entry kernels, the entry kernels compiled on
first use (LazyKernels), and a compiled slot passed by its address (FixedSlot)."""

from __future__ import annotations

import threading

from numba import njit, types

from ..console import compiling

# ---- the policy slot: heuristics and user policies are called through one function argument of
# this signature, so the cached kernels never recompile for a new policy (see unosim.players.policy_api):
# ``int64 policy(which, kind, obs, params, rng)`` -> an option index, or -1
SLOT_SIG = types.int64(types.int64, types.int64, types.int64[::1], types.float64[::1], types.uint64[::1])
SLOT = types.FunctionType(SLOT_SIG)
i8 = types.int64
I1 = types.int64[::1]
I2 = types.int64[:, ::1]
F1 = types.float64[::1]
F2 = types.float64[:, ::1]


def _sig(*args):
    return types.void(*args)


class LazyKernels:
    """Entry kernels (called from Python, with an explicit signature so that the policy slot argument keeps
    them cached) compiled, or loaded from numba's disk cache, on first use rather than at import: checking a
    run's arguments (:func:`unosim.running.sim.check_simulate`) never waits for the compiler.

    ``@entry(signature, **njit_options)`` registers a module-level function; :meth:`unbind` (at the end
    of the module) removes the plain functions from the namespace, so that the module's ``__getattr__``
    (:meth:`get`) compiles each one on its first access and binds the dispatcher in its place."""

    def __init__(self, namespace: dict) -> None:
        self.ns = namespace
        self.specs: dict[str, tuple] = {}
        self.lock = threading.Lock()

    def __call__(self, signature, **options):
        def register(fn):
            self.specs[fn.__name__] = (fn, signature, options)
            return fn
        return register

    def unbind(self) -> None:
        for name in self.specs:
            self.ns.pop(name, None)

    def get(self, name: str):
        if name not in self.specs:
            raise AttributeError(f"module {self.ns['__name__']!r} has no attribute {name!r}")
        with self.lock:
            if name not in self.ns:
                fn, signature, options = self.specs[name]
                with compiling(name, fn, signature, options.get("cache", False)):
                    self.ns[name] = njit(signature, **options)(fn)
        return self.ns[name]

    def compiled(self) -> list[str]:
        """The entry kernels compiled or loaded so far in this process."""
        return [name for name in self.specs if name in self.ns]


class FixedSlot(types.WrapperAddressProtocol):
    """A compiled policy slot by its address, passed to a kernel's ``SLOT`` argument without numba's look-up of
    the dispatcher's compiled version at every call (about 80 microseconds: more than a step of the engine,
    and a quarter of a decision of ``lookahead(rollouts=8)``)."""

    def __init__(self, dispatcher) -> None:
        self._numba_type_ = SLOT  # numba's typeof reads this instead of building the type at every call
        cres = dispatcher.get_compile_result(SLOT_SIG)
        if cres is None:
            dispatcher.compile(SLOT_SIG)
            cres = dispatcher.get_compile_result(SLOT_SIG)
        self._addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)
        self._keep = dispatcher

    def __wrapper_address__(self) -> int:
        return self._addr

    def signature(self):
        return SLOT_SIG


_FIXED: dict[int, FixedSlot] = {}


def fixed_slot(dispatcher) -> FixedSlot:
    """The slot ``dispatcher`` (unosim.players.policy_api.slot_for, heuristics_nb.heuristics_slot_nb) as a
    :class:`FixedSlot`, made once per slot: what the steps and the search pass to their kernels."""
    key = id(dispatcher)
    if key not in _FIXED:
        _FIXED[key] = FixedSlot(dispatcher)
    return _FIXED[key]
