"""ModelSpec's hash is computed once and stays the dataclass's: equal specs hash equal, the cache is
no field (not compared, shown or serialised)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from gpuscout.knowledge.model_registry import ModelRegistry


def test_the_hash_is_the_same_for_equal_specs_and_follows_every_field() -> None:
    spec = ModelRegistry().resolve("llama-3.1-8b")
    same = dataclasses.replace(spec)
    assert same == spec and same is not spec and hash(same) == hash(spec) == hash(spec)
    other = dataclasses.replace(spec, num_hidden_layers=spec.num_hidden_layers + 1)
    assert other != spec and hash(other) != hash(spec)
    assert hash(spec) == hash(tuple(getattr(spec, f.name) for f in dataclasses.fields(spec)))
    for again in (pickle.loads(pickle.dumps(spec)), copy.deepcopy(spec), copy.copy(spec)):
        assert again == spec and hash(again) == hash(spec)
    assert {spec: 1}[same] == 1


def test_the_cached_hash_is_no_field() -> None:
    spec = ModelRegistry().resolve("llama-3.1-8b")
    hash(spec)
    assert "_hash" not in {f.name for f in dataclasses.fields(spec)}
    assert "_hash" not in dataclasses.asdict(spec) and "_hash" not in repr(spec)
