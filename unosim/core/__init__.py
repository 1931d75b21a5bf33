"""unosim.core: the compiled core: the kernels, the built-in numba heuristics and the engine's constants."""
