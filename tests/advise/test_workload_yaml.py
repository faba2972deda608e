"""Workload YAML/JSON is parsed with bounds: alias bombs, deep nesting and malformed text are clear
``InvalidInputError``s on ``workload`` with short messages, never a hang, a ``RecursionError`` or a
message that copies the expanded input.

Regression for the audit's defects 10 (a 350-byte YAML with nested aliases hung ``recommend
--workload``: the error message repr'ed the expanded input) and 14 (3,000-deep JSON ->
``RecursionError``).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.advise.workload import MAX_YAML_VALUES, ServeWorkload, Workload
from gpuscout.errors import InvalidInputError

HEAD = "kind: serve\nmodel: llama-3.1-8b\n"


def alias_bomb(levels: int, breadth: int, where: str = "regions") -> str:
    """``levels`` anchors, each a list of ``breadth`` aliases of the one before: breadth**levels values."""
    lines = [f"l0: &l0 [{', '.join(['x'] * breadth)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * breadth)}]")
    return "\n".join(lines) + f"\n{HEAD}{where}: *l{levels - 1}\n"


def test_the_audits_350_byte_bomb_is_refused_at_once() -> None:
    text = alias_bomb(9, 9)
    assert len(text) < 600
    with pytest.raises(InvalidInputError) as exc:
        Workload.from_yaml(text)
    assert exc.value.field == "regions" and "aliases" in str(exc.value)  # the field holding the bomb
    assert len(str(exc.value)) < 200


@settings(max_examples=60, deadline=None)
@given(
    levels=st.integers(1, 14),
    breadth=st.integers(1, 12),
    where=st.sampled_from(["regions", "providers", "model", "kind", "notes", "concurrency"]),
)
def test_alias_expansion_is_bounded_whatever_the_shape(levels: int, breadth: int, where: str) -> None:
    text = alias_bomb(levels, breadth, where)
    try:
        Workload.from_yaml(text)
    except InvalidInputError as exc:
        assert len(str(exc)) < 500
        if breadth**levels > MAX_YAML_VALUES:
            assert "aliases" in str(exc) or "nested" in str(exc)
    else:
        pytest.fail("the l0.. keys are not workload fields: never accepted")


@settings(max_examples=40, deadline=None)
@given(
    depth=st.integers(1, 6000), brackets=st.sampled_from(["[]", "{}"]), fmt=st.sampled_from(["json", "yaml"])
)
def test_deep_nesting_is_an_error_not_a_recursion_error(depth: int, brackets: str, fmt: str) -> None:
    open_, close = brackets
    value = open_ * depth + "1" + close * depth if open_ == "[" else '{"a": ' * depth + "1" + "}" * depth
    text = f'{{"kind": "serve", "model": "llama-3.1-8b", "regions": {value}}}'
    with pytest.raises(InvalidInputError) as exc:
        Workload.from_json(text) if fmt == "json" else Workload.from_yaml(text)
    assert len(str(exc.value)) < 500


@pytest.mark.parametrize(
    "text",
    [
        'kind: serve\nmodel: "llama-3.1-8b\n',
        "kind: serve\n\tmodel: x\n",
        "kind: : serve\n",
        "kind: serve\nmodel: !!python/object/apply:os.system ['true']\n",
        "- kind: serve\n- model: x\n",
        "42\n",
    ],
)
def test_malformed_yaml_is_a_short_clear_error(text: str) -> None:
    with pytest.raises(InvalidInputError) as exc:
        Workload.from_yaml(text)
    assert exc.value.field == "workload" and len(str(exc.value)) < 300


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("a: &a [*a]\n" + HEAD, "a"),  # an alias of itself
        (HEAD + "regions: " + "[" * 30 + "]" * 30 + "\n", "regions"),
        ('{"kind": "serve", "model": "m", "providers": ' + "[" * 3000 + "]" * 3000 + "}", "providers"),
    ],
)
def test_too_deep_names_the_field(text: str, field: str) -> None:
    with pytest.raises(InvalidInputError) as exc:
        Workload.from_json(text) if text.startswith("{") else Workload.from_yaml(text)
    assert exc.value.field == field and "deep" in str(exc.value)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_or_is_a_clear_error(text: str) -> None:
    for parse in (Workload.from_yaml, Workload.from_json):
        try:
            parse(text)
        except InvalidInputError as exc:
            assert len(str(exc)) < 700


def test_plain_files_still_parse() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, regions=("us-", "eu"))
    assert Workload.from_yaml(w.to_yaml()) == w
    assert Workload.from_json(w.to_json()) == w
    anchors = "defaults: &d {concurrency: 4}\n"  # an anchor alone is fine, but not an unknown field
    with pytest.raises(InvalidInputError, match="defaults"):
        Workload.from_yaml(anchors + HEAD)
    assert Workload.from_yaml(HEAD + "regions: &r [us-, eu]\nproviders: [aws]\n").regions == ("us-", "eu")
    assert json.loads(w.to_json())["concurrency"] == 4
