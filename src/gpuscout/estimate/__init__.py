"""Workload physics: pure functions from (model, accelerator, settings) to memory and speed.

``gpuscout.estimate`` is both this package and the public function: once the package is imported
it shadows the lazy attribute of the package root, so the package itself is made callable and
forwards to :func:`gpuscout.estimate.api.estimate`, whose signature, docstring and ``__wrapped__`` it
shows (``inspect.signature(gpuscout.estimate)``, ``help(gpuscout.estimate)``), whichever of the two
``gpuscout.estimate`` is.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

_PACKAGE_DOC = __doc__


def _function() -> Callable[..., Any]:
    from gpuscout.estimate.api import estimate

    return estimate


class _CallablePackage(types.ModuleType):
    # The package, callable as the function: it answers for the function where tools ask a callable
    # (inspect.signature follows ``__signature__``, pydoc reads ``__doc__``, functools ``__wrapped__``).

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _function()(*args, **kwargs)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        return _function()

    @property
    def __signature__(self) -> Any:
        import inspect

        return inspect.signature(_function())

    @property
    def __doc__(self) -> str | None:  # the function's, then what this package is
        return f"{_function().__doc__ or ''}\n\n{_PACKAGE_DOC or ''}"

    @__doc__.setter
    def __doc__(self, value: str | None) -> None:
        self.__dict__["__doc__"] = value


sys.modules[__name__].__class__ = _CallablePackage


def __getattr__(name: str) -> Any:
    """``from gpuscout.estimate import estimate`` works too: the function, imported on first use."""
    if name == "estimate":
        return _function()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
