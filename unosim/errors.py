"""The library's exceptions: every refusal of bad input is a :class:`UnosimError`.

Each one carries a one-line message that names the bad value and the accepted ones; the command line
prints exactly that line (``error: ...``) and exits with code 2.  ``UnosimError`` subclasses
``ValueError``, so ``except ValueError`` keeps working.

This module imports nothing from the package, so every other module can import it.
"""

from __future__ import annotations

import os


class UnosimError(ValueError):
    """Bad input to unosim (one-line message naming the bad value and the accepted ones)."""


class SimulationError(UnosimError):
    """Bad arguments to a simulation (players, games, seed, threads, seating, match options ...)."""


class RuleError(UnosimError):
    """A bad rules string, option value or rule combination."""


class PolicyError(UnosimError):
    """A bad policy specification."""


class PolicyAnswerError(PolicyError):
    """A policy answered a decision with an illegal or out-of-range value (one line: policy, decision, value)."""


class DecisionTimeout(PolicyError):
    """A plain-Python policy took longer than the per-decision time limit (one line: policy, decision, limit)."""


class PolicyRaised(PolicyError):
    """A user policy raised.  The first line names the policy and the decision; the lines after it are
    the user's own frames (:func:`user_frames`), never the engine's.  The command line prints them all."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _engine_frame(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE) or f"{os.sep}numba{os.sep}" in path


def user_frames(exc: BaseException) -> str:
    """The traceback of ``exc`` without unosim's and numba's frames (the last frame when nothing else is
    left), ending with the exception's own line."""
    import traceback

    tb = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in tb if not _engine_frame(f.filename)] or tb[-1:]
    return "".join(traceback.format_list(mine)) + f"{type(exc).__name__}: {exc}"


def policy_raised(headline: str, exc: BaseException) -> PolicyRaised:
    """The error of a user policy that raised ``exc``: ``headline`` (policy and decision), then its frames."""
    return PolicyRaised(f"{headline}\n{user_frames(exc)}")


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
