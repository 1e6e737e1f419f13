"""The exceptions that cross the package's layers: refused agent specs and missing optional dependencies.

They live here, below every subpackage, so that the players (the SB3 adapter), the agent
loader (:mod:`big2_env.evaluation.loading`) and plugins such as the ``agents`` package raise
the same types. The engine's own :class:`~big2_env.engine.game.IllegalPlayError` stays with it.
"""

from __future__ import annotations

__all__ = ["LoadError", "MissingDependencyError", "UntrustedModelError"]


class LoadError(ValueError):
    """A spec that names no loadable agent: unknown name, missing or unreadable file, refused model."""


class UntrustedModelError(LoadError):
    """Loading would unpickle (run code from) the file; refused because ``trust`` was not given."""


class MissingDependencyError(LoadError, ImportError):
    """The spec needs an optional dependency (torch, sb3-contrib) that is not installed."""
