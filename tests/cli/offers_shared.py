"""What an offers table in a narrow terminal says of a column: shown on every row, or said once for
all rows under the table ("all rows: source snapshot, price age unknown": the columns whose rows all
read the same give way first, ``gpuscout.cli.offers_view.shared_note``)."""

from __future__ import annotations

from collections.abc import Sequence


def shared_text(lines: Sequence[str]) -> str:
    """The "all rows: ..." line under the table (joined where it wraps), or "" where there is none."""
    start = next((i for i, line in enumerate(lines) if line.startswith("all rows: ")), None)
    if start is None:
        return ""
    text = lines[start]
    for line in lines[start + 1 :]:  # the notes under it each say "X = ...", or what is not shown
        if not line.strip() or " = " in line or line.startswith("not shown"):
            break
        text += " " + line.strip()
    return text


def said_for_all_rows(lines: Sequence[str], headers: Sequence[str], header: str, words: str) -> bool:
    """Whether the table shows ``header`` as a column, or says ``words`` ("source snapshot") once for
    all its rows."""
    return header in headers or words in " ".join(shared_text(lines).split())


def accounted_for(lines: Sequence[str], headers: Sequence[str], header: str, words: str) -> bool:
    """Whether the table shows ``header``, says ``words`` for all its rows, or names ``header`` among
    the columns it leaves out ("not shown at this width: ..."): never silently gone."""
    at = next((i for i, line in enumerate(lines) if line.startswith("not shown at this width: ")), None)
    note = "" if at is None else " ".join(" ".join(lines[at:]).split())
    named = note.split(" (a wider terminal")[0].removeprefix("not shown at this width: ").split(", ")
    return said_for_all_rows(lines, headers, header, words) or header in named
