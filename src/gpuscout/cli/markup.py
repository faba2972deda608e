"""Text from providers, files or users, made safe to show: as Rich markup that shows it exactly
(:func:`plain`), or with its control characters spelled out (:func:`printable`).

Kept apart from :mod:`gpuscout.cli.output` so that a command answered without Typer or Rich (see
:mod:`gpuscout.cli.lean`) can use it.
"""

from __future__ import annotations

import re

#: A "[" and the backslashes before it, with the tag Rich would read there (``[bold]``, ``[/]``,
#: ``[link=...]``: the same pattern as ``rich.markup.RE_TAGS``), if any.
_BRACKET = re.compile(r"(\\*)(\[(?:[a-z#/@][^[]*?\])?)")


def plain(value: object) -> str:
    """``str(value)`` escaped for Rich markup: shown exactly as written, never read as a style, a
    closing tag (``[/]`` would raise) or a hidden link (``[link=...]``); control characters are
    shown as ``\\xNN`` (see :func:`printable`).

    Unlike ``rich.markup.escape`` it also keeps a backslash before a "[" that starts no tag (Rich
    drops it). Do not put a value directly before a tag of ours (``f"{plain(x)}[/]"``): a trailing
    backslash would escape the tag; use ``Text.assemble`` there.
    """

    def keep(match: re.Match[str]) -> str:
        backslashes, bracket = match.groups()
        if len(bracket) > 1:  # a tag: every backslash kept, and the tag escaped
            return backslashes * 2 + "\\" + bracket
        return backslashes + ("\\" if backslashes else "") + bracket  # Rich turns "\[" into "["

    return _BRACKET.sub(keep, printable(value))


#: Control characters (C0 but tab and newline, DEL, C1): a raw ESC would let a provider string
#: send terminal escape sequences (colours, cursor moves, OSC 8 hidden links).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(value: object) -> str:
    """``str(value)`` with control characters shown as ``\\xNN`` (for text given to ``Text``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))
