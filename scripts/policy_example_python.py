"""Example plain-Python policy file for ``unosim simulate --policy-file scripts/policy_example_python.py``.

* ``greedy_py``: every decision left to the default (greedy); the same records as the built-in greedy.
* ``low_first_py``: the plain-Python twin of ``low_first`` in policy_example_numba.py (with p_draw=0):
  play the legal card with the fewest points, wilds last.  Both give identical records.
"""

from unosim.external import PythonPolicy


class GreedyPy(PythonPolicy):
    """greedy, in plain Python (every decision falls back to the default)."""

    name = "greedy_py"


class LowFirstPy(PythonPolicy):
    """Play the legal card with the fewest points (wilds last)."""

    name = "low_first_py"

    def play(self, d):
        best = -1
        for k in range(d.nlegal):
            if " " not in d.options[k]:  # a black card: "wild", "wd4", ...
                if best < 0:
                    best = k
                continue
            if best < 0 or " " not in d.options[best] or d.points[k] < d.points[best]:
                best = k
        return best
