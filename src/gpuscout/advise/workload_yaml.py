"""Workload files in YAML, parsed with bounds: a workload is a flat mapping with a few short lists, so
deep nesting and alias bombs are refused before anything is built. Imported only when a workload is
read from or written to YAML (``Workload.from_yaml`` / ``to_yaml``), so a command given its workload
as options does not load PyYAML."""

from __future__ import annotations

from typing import Any

import yaml

from gpuscout.advise.workload import MAX_SHOWN, MAX_YAML_DEPTH, MAX_YAML_VALUES, repeated_key
from gpuscout.errors import InvalidInputError


def parse_yaml(text: str) -> Any:
    """``yaml.safe_load`` of one document, refused with an ``InvalidInputError`` when it is invalid,
    nested deeper than ``MAX_YAML_DEPTH`` or holds more than ``MAX_YAML_VALUES`` values once its
    aliases are expanded (checked on the composed node graph, before anything is built)."""
    loader: _DepthLimitedLoader | None = None
    try:
        loader = _DepthLimitedLoader(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    except yaml.reader.ReaderError as exc:
        raise InvalidInputError(
            "workload",
            f"not valid YAML/JSON: character #x{exc.character:04x} at "
            f"position {exc.position} is not allowed (a binary or UTF-16 file?)",
            "a UTF-8 YAML or JSON mapping",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "cannot be parsed"
        problem = problem if len(problem) <= MAX_SHOWN else problem[: MAX_SHOWN - 3] + "..."
        raise InvalidInputError(
            "workload", f"not valid YAML/JSON: {where}{problem}", "a YAML or JSON mapping"
        ) from None
    except RecursionError:
        raise InvalidInputError(
            "workload", "not valid YAML/JSON: nested too deeply", f"at most {MAX_YAML_DEPTH} levels"
        ) from None
    finally:
        if loader is not None:
            loader.dispose()


class _DepthLimitedLoader(yaml.SafeLoader):
    """The safe loader, refusing nesting deeper than ``MAX_YAML_DEPTH`` while it composes (its
    composer recurses: a 5,000-deep list would otherwise take seconds to end in ``RecursionError``)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._path: list[object] = []  # the index of each node being composed (a key node in a mapping)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._path.append(index)
        try:
            if len(self._path) > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                top = self._path[1]  # the workload field the nesting is under
                field = top.value if isinstance(top, yaml.ScalarNode) else "workload"
                raise InvalidInputError(
                    str(field),
                    f"nested deeper than {MAX_YAML_DEPTH} levels (line {mark.line + 1})",
                    "a value or a short list",
                )
            return super().compose_node(parent, index)
        finally:
            self._path.pop()


def _check_expansion(root: yaml.Node) -> None:
    """Walk the node graph as construction would (an alias is visited each time it is used), up to
    ``MAX_YAML_VALUES`` values: a bomb is refused after that many steps, not after expanding it. A key
    given twice in a mapping is refused once the walk is done (a bomb under it is said first)."""
    # (node, depth, the top-level field it is under: what an error names)
    stack: list[tuple[yaml.Node, int, str]] = [(root, 1, "workload")]
    seen = 0
    repeat: InvalidInputError | None = None
    while stack:
        node, depth, field = stack.pop()
        seen += 1
        if seen > MAX_YAML_VALUES:
            raise InvalidInputError(
                field,
                f"expands to more than {MAX_YAML_VALUES:,} values (nested YAML aliases?)",
                "a value or a short list",
            )
        if depth > MAX_YAML_DEPTH:  # aliases can nest deeper than the text does
            raise InvalidInputError(
                field, f"nested deeper than {MAX_YAML_DEPTH} levels", "a value or a short list"
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1, field) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            repeat = repeat or _repeated_key(node, field if depth > 1 else None)
            for key, value in node.value:
                under = str(key.value) if depth == 1 and isinstance(key, yaml.ScalarNode) else field
                stack.append((key, depth + 1, under))
                stack.append((value, depth + 1, under))
    if repeat is not None:
        raise repeat


_MERGE = "tag:yaml.org,2002:merge"


def _repeated_key(node: yaml.MappingNode, under: str | None) -> InvalidInputError | None:
    """The error of a key written twice in one mapping (``concurrency: 3`` then ``concurrency: 5``), naming
    it (the top-level field it is under, for a nested mapping), as a query parameter given twice is on the
    web: YAML's loader would keep the last value without a word; None when there is none. Merge keys
    (``<<``) are not repeats: what a mapping states itself overrides what it merges."""
    values: dict[tuple[str, str], list[yaml.Node]] = {}
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE:
            values.setdefault((key.tag, str(key.value)), []).append(value)
    for (_, name), given in values.items():
        if len(given) > 1:
            return repeated_key(under or name, name, [_shown_node(v) for v in given])
    return None


def _shown_node(node: yaml.Node) -> str:
    """A value as written, roughly: ``5``, ``[us, eu]``, ``{...}``."""
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    if isinstance(node, yaml.SequenceNode):
        items = [str(v.value) if isinstance(v, yaml.ScalarNode) else "..." for v in node.value[:5]]
        return "[" + ", ".join(items) + (", ...]" if len(node.value) > 5 else "]")
    return "{...}"
