"""The library's exceptions: every refusal of bad input is a :class:`UnosimError`.

Each one carries a one-line message that names the bad value and the accepted ones; the command line
prints exactly that line (``error: ...``) and exits with code 2.  ``UnosimError`` subclasses
``ValueError``, so ``except ValueError`` keeps working.

This module imports nothing from the package, so every other module can import it.
"""

from __future__ import annotations


class UnosimError(ValueError):
    """Bad input to unosim (one-line message naming the bad value and the accepted ones)."""


class SimulationError(UnosimError):
    """Bad arguments to a simulation (players, games, seed, threads, seating, match options ...)."""


class RuleError(UnosimError):
    """A bad rules string, option value or rule combination."""


class PolicyError(UnosimError):
    """A bad policy specification."""


class DeckError(UnosimError):
    """A bad deck specification or deck file."""


class ScenarioError(UnosimError):
    """A bad rigged scenario (hands, cards, dealer, script)."""


class RunFileError(UnosimError):
    """A saved run (``meta.json`` + ``records.parquet``) that is missing, unreadable or inconsistent."""


class BackendError(UnosimError):
    """A bad execution backend option, or a cluster that cannot be reached (one-line message)."""


class OutputError(UnosimError):
    """A result file that cannot be written (disk full, no permission ...): one line naming the path."""
