"""Assumption text built on first read, for callers that make many estimates and read few.

``estimate()`` describes its assumptions in some fifteen formatted strings. The advisor makes
hundreds of estimates per answer (the searches over the batch, one configuration after another) and
shows the text of a few: inside :func:`deferred_text`, ``estimate()`` returns a :class:`LazyText`
that formats them when first read, and a :class:`LazyList` for the records behind them (the setups
that would fit where one does not: :func:`items`). Outside it (the CLI's ``estimate``, the web API, any
other caller) the text is a plain ``dict`` and the records a plain ``list``, built at once, so code that
reads their storage directly (pydantic-core validating ``dict[str, str]``) sees every item.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, SupportsIndex, TypeVar

_T = TypeVar("_T")

_DEFERRED: ContextVar[bool] = ContextVar("gpuscout_deferred_text", default=False)


@contextmanager
def deferred_text() -> Iterator[None]:
    """Within this block (this thread / task), estimates build their assumption text when it is read."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def text(build: Callable[[], dict[str, str]]) -> dict[str, str]:
    """``build()`` now, or a :class:`LazyText` that calls it on first read inside :func:`deferred_text`."""
    if _DEFERRED.get():
        return LazyText.deferred(build)
    return build()


class LazyText(dict[str, str]):
    """A ``dict[str, str]`` whose items are built by a function on first use (any read, write, copy,
    comparison or pickle fills it first). Code reading the C-level storage without a method (pydantic-core)
    would see it empty: such text is only made inside :func:`deferred_text`."""

    __slots__ = ("_build",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._build: Callable[[], dict[str, str]] | None = None

    @classmethod
    def deferred(cls, build: Callable[[], dict[str, str]]) -> LazyText:
        out = cls()
        out._build = build
        return out

    def _fill(self) -> None:
        build = self._build
        if build is not None:
            self._build = None
            dict.update(self, build())

    # every way to read or change it fills it first
    def __getitem__(self, key: str) -> str:
        self._fill()
        return dict.__getitem__(self, key)

    def __setitem__(self, key: str, value: str) -> None:
        self._fill()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self._fill()
        dict.__delitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[str]:
        self._fill()
        return dict.__reversed__(self)

    def __len__(self) -> int:
        self._fill()
        return dict.__len__(self)

    def __eq__(self, other: object) -> bool:
        self._fill()
        if isinstance(other, LazyText):
            other._fill()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __or__(self, other: Any) -> dict[str, str]:  # type: ignore[override]
        self._fill()
        return dict(self) | other  # type: ignore[no-any-return]

    def __ror__(self, other: Any) -> dict[str, str]:  # type: ignore[override]
        self._fill()
        return other | dict(self)  # type: ignore[no-any-return]

    def __ior__(self, other: Any) -> LazyText:  # type: ignore[override]
        self._fill()
        dict.update(self, other)
        return self

    def __reduce__(self) -> tuple[type[dict[str, str]], tuple[dict[str, str]]]:
        self._fill()
        return (dict, (dict(self.items()),))

    def get(self, key: str, default: Any = None) -> Any:
        self._fill()
        return dict.get(self, key, default)

    def keys(self) -> Any:
        self._fill()
        return dict.keys(self)

    def values(self) -> Any:
        self._fill()
        return dict.values(self)

    def items(self) -> Any:
        self._fill()
        return dict.items(self)

    def copy(self) -> dict[str, str]:
        self._fill()
        return dict(dict.items(self))

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._fill()
        return dict.setdefault(self, key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self._fill()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, str]:
        self._fill()
        return dict.popitem(self)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._fill()
        dict.update(self, *args, **kwargs)

    def clear(self) -> None:
        self._build = None
        dict.clear(self)


def items(build: Callable[[], Sequence[_T]]) -> list[_T]:
    """``build()`` now as a list, or a :class:`LazyList` that calls it on first read inside
    :func:`deferred_text` (as :func:`text` does for the assumption text)."""
    if _DEFERRED.get():
        return LazyList(build=build)
    return list(build())


_FILL_LOCK = threading.RLock()  # re-entrant: a build may make estimates of its own


class LazyList(list[_T]):
    """A ``list`` whose items are built by a function on first use, once (every read and change fills it
    first; copied or pickled, a plain ``list``; ``json`` fills it, as it iterates). The build runs under a
    lock and is published whole, so another thread never sees it half made; a build that raises leaves it
    to be tried again. Code reading a list's storage without a method (pydantic-core's validation) would
    see it empty while unfilled, as :class:`LazyText`."""

    __slots__ = ("_build",)

    def __init__(self, values: Iterable[_T] = (), *, build: Callable[[], Sequence[_T]] | None = None) -> None:
        super().__init__(values)
        self._build = build

    def _fill(self) -> None:
        if self._build is None:
            return
        with _FILL_LOCK:
            build = self._build
            if build is not None:
                list.extend(self, build())
                self._build = None

    def __reduce__(self) -> tuple[type[list[_T]], tuple[list[_T]]]:
        self._fill()
        return (list, (list(list.__iter__(self)),))

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[type[list[_T]], tuple[list[_T]]]:
        return self.__reduce__()

    def clear(self) -> None:
        self._build = None
        list.clear(self)


def _filled_first(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def filled(self: LazyList[Any], *args: Any, **kwargs: Any) -> Any:
        self._fill()
        for other in args:  # another one read beside it (compared, added): filled too
            if isinstance(other, LazyList):
                other._fill()
        return method(self, *args, **kwargs)

    filled.__name__ = name
    return filled


# every way to read or change the list fills it first
for _name in (
    "__getitem__", "__setitem__", "__delitem__", "__iter__", "__reversed__", "__len__", "__contains__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__add__", "__mul__", "__rmul__",
    "__iadd__", "__imul__", "append", "extend", "insert", "remove", "pop", "sort", "reverse", "index",
    "count", "copy",
):  # fmt: skip
    setattr(LazyList, _name, _filled_first(_name))
del _name
