"""gpuscout: which cloud GPU offer to rent for a generative-AI workload, and what it will really cost.

Python API::

    import gpuscout
    est = gpuscout.estimate("llama-3.1-8b", "H100", precision="fp8", batch=16)
    recs = gpuscout.recommend(workload)            # ranked offers from the current catalog
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from gpuscout.advise.api import recommend
    from gpuscout.estimate.api import estimate

__all__ = ["__version__", "estimate", "recommend"]


def __getattr__(name: str) -> Any:
    # Imported lazily so that `import gpuscout` stays cheap for the CLI.
    if name == "estimate":
        from gpuscout.estimate.api import estimate

        return estimate
    if name == "recommend":
        from gpuscout.advise.api import recommend

        return recommend
    raise AttributeError(name)
