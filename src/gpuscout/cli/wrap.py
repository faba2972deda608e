"""Text broken onto lines only where a reader may break it: at a plain space, never inside a word.

Rich wraps between words too, but folds a word longer than the line (a URL split as ".../vll" / "m/...",
which then cannot be clicked or copied) and breaks at every space, the no-break space U+00A0 included
("32/32 ×" / "128"). Here a word longer than the line stands whole on a line of its own (the terminal
shows the overflow), and words joined by :data:`NBSP` stay on one line, where they read as one space.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

#: Joins words that must stay on one line (a number and its unit, "32/32 × 128", "512 in / 512 out");
#: shown as a plain space once the lines are broken (:func:`shown`).
NBSP = "\u00a0"

_WORD = re.compile(r"[^ \n]+")
#: A web address in text, up to the next space; :func:`_url_end` takes the punctuation after it off.
_URL = re.compile(r"https?://\S+")
#: What may close a sentence or a bracket right after an address without being part of it.
_AFTER_URL = ".,;:!?'\")]"


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


def _url_end(url: str) -> int:
    """Where the address that starts ``url`` ends: the punctuation after it left out, a ")" kept where
    the address opened it ("…/Foo_(bar)")."""
    end = len(url)
    while end and url[end - 1] in _AFTER_URL:
        if url[end - 1] == ")" and url[:end].count("(") >= url[:end].count(")"):
            break
        end -= 1
    return end


def url_notes(text: str, notes: list[str]) -> str:
    """``text`` with each web address in it replaced by its number in ``notes`` ("[1]"), the address
    added there where it is not yet: a table cell too narrow for an address would fold it, and an
    address printed below the table (:func:`print_url_notes`) can be clicked and copied whole."""

    def note(match: re.Match[str]) -> str:
        found = match.group()
        end = _url_end(found)
        url = found[:end]
        if url not in notes:
            notes.append(url)
        return f"[{notes.index(url) + 1}]{found[end:]}"

    return _URL.sub(note, text)


def print_url_notes(out: Console, notes: list[str]) -> None:
    """The addresses :func:`url_notes` took out of a table, one a line, numbered as their marks."""
    for n, url in enumerate(notes, 1):
        print_wrapped(out, url, prefix=f"[{n}] ")


def print_wrapped(
    out: Console, text: str, *, prefix: str = "", style: str = "", prefix_style: str = ""
) -> None:
    """``text`` (as it is: not markup) after ``prefix``, its lines broken at plain spaces (:func:`wrapped`)
    to the console's width and each line after the first indented under the first one's text: a bullet's
    lines stay under the bullet, and a web address is never split (one wider than the line stands whole
    on a line of its own, and the terminal shows the overflow)."""
    from rich.cells import cell_len
    from rich.text import Text

    indent = cell_len(prefix)
    for n, line in enumerate(wrapped(text, max(out.width - indent, 1))):
        lead = prefix if n == 0 else " " * indent
        out.print(Text.assemble((lead, prefix_style), (line, style)), soft_wrap=True, highlight=False)
