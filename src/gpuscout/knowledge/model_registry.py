"""Model names resolved against the curated registry *and* the models a user imported.

``ModelRegistry`` is pure: the faces read the user's imported models from disk
(:mod:`gpuscout.user_models`) and pass them in as ``ModelSpec`` values; the estimator and the
advisor then resolve every name through the registry they were given. A name matches an imported
model by its name or Hugging Face id (case-insensitive, spaces/underscores as dashes); otherwise the
curated resolver decides, and an unknown name gets the closest names of both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gpuscout.errors import UnknownNameError, closest, fold_name
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.models import ModelResolution, all_models, resolve_model_detail


def name_key(name: str) -> str:
    """How imported names compare: lower case, spaces and underscores as dashes, no surrounding space,
    look-alike characters folded (:func:`~gpuscout.errors.fold_name`)."""
    return "-".join(fold_name(name).strip().lower().replace("_", " ").split())


@dataclass(frozen=True, slots=True)
class ModelRegistry:
    """The curated models plus ``imported`` ones (a user's, read at the edge)."""

    imported: tuple[ModelSpec, ...] = ()
    _index: dict[str, ModelSpec] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for spec in self.imported:
            for label in (spec.name, spec.hf_id):
                if label:
                    self._index.setdefault(name_key(label), spec)

    @classmethod
    def of(cls, specs: Iterable[ModelSpec]) -> ModelRegistry:
        return cls(tuple(specs))

    def lookup_imported(self, name: str) -> ModelSpec | None:
        """The imported model ``name`` names, or ``None``."""
        return self._index.get(name_key(name)) if isinstance(name, str) else None

    def resolve_detail(self, name: str, *, field: str = "model") -> ModelResolution:
        """An imported model first, then the curated resolver; unknown names list the closest of both."""
        found = self.lookup_imported(name)
        if found is not None:
            return ModelResolution(found, exact=True, note="imported by you")
        try:
            return resolve_model_detail(name, field=field, imported=False)  # this registry's own below
        except UnknownNameError as exc:
            if not self.imported:
                raise
            mine = closest(name, [s.name for s in self.imported], n=3)
            raise UnknownNameError(
                field, name, [*mine, *(s for s in exc.suggestions if s not in mine)][:6]
            ) from None

    def resolve(self, name: str | ModelSpec, *, field: str = "model") -> ModelSpec:
        """The ``ModelSpec`` a name means (a ``ModelSpec`` passes through)."""
        if isinstance(name, ModelSpec):
            return name
        return self.resolve_detail(name, field=field).model

    def all(self) -> tuple[ModelSpec, ...]:
        """The curated models, then the imported ones."""
        return (*all_models(), *self.imported)
