"""Text broken onto lines only where a reader may break it: at a plain space, never inside a word.

Rich wraps between words too, but folds a word longer than the line (a URL split as ".../vll" / "m/...",
which then cannot be clicked or copied) and breaks at every space, the no-break space U+00A0 included
("32/32 ×" / "128"). Here a word longer than the line stands whole on a line of its own (the terminal
shows the overflow), and words joined by :data:`NBSP` stay on one line, where they read as one space.
"""

from __future__ import annotations

import re

#: Joins words that must stay on one line (a number and its unit, "32/32 × 128", "512 in / 512 out");
#: shown as a plain space once the lines are broken (:func:`shown`).
NBSP = "\u00a0"

_WORD = re.compile(r"[^ \n]+")


def shown(text: str) -> str:
    """``text`` as it is printed: each :data:`NBSP` a plain space."""
    return text.replace(NBSP, " ")


def longest_word(text: str) -> int:
    """The width of the widest run of ``text`` that :func:`break_at` never breaks."""
    from rich.cells import cell_len

    return max((cell_len(word) for word in _WORD.findall(text)), default=0)


def break_at(text: str, width: int) -> list[int]:
    """The indices of the plain spaces in ``text`` to turn into line breaks so that each line is at most
    ``width`` cells wide, as many words on a line as fit; a word wider than ``width`` alone on its line.
    Line breaks already in ``text`` stay."""
    from rich.cells import cell_len

    breaks: list[int] = []
    used = 0  # cells on the line so far
    end = 0  # where the line's last word ends
    for match in _WORD.finditer(text):
        word = cell_len(match.group())
        newline = "\n" in text[end : match.start()]
        gap = match.start() - end
        if used and not newline and used + gap + word > width:
            breaks.append(end)  # the first space after the line's last word
            used = word
        elif used and not newline:
            used += gap + word
        else:
            used = word
        end = match.end()
    return breaks


def wrapped(text: str, width: int) -> list[str]:
    """``text`` as lines of at most ``width`` cells (:func:`break_at`), no-break spaces shown as spaces."""
    chars = list(text)
    for i in break_at(text, width):
        chars[i] = "\n"
    return [shown(line).rstrip(" ") for line in "".join(chars).split("\n")]
