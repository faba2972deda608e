"""Workload physics: pure functions from (model, accelerator, settings) to memory and speed.

``gpuscout.estimate`` is both this package and the public function: once the package is imported
it shadows the lazy attribute of the package root, so the package itself is made callable and
forwards to :func:`gpuscout.estimate.api.estimate`.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from gpuscout.estimate.api import estimate

        return estimate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
