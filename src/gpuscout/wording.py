"""Words that agree with the figures they follow, for every layer (it imports nothing from gpuscout).

The lowest layer of the import contract (``pyproject.toml``): the estimator, the catalog and the faces
pluralise through it, so that none spells "1 GPU(s)" or its own ``'s' if n != 1``.
"""

from __future__ import annotations

from collections.abc import Sequence

#: What a region filter term means (``knowledge.regions``), said the same by every face's help.
REGION_HELP = (
    "whole words of the region, ignoring case (us-east: us-east-1; DE is not desmoines); a country's "
    "ISO code or name (DE, Germany, US, USA, UK): offers located there; an area (eu/europe, eea, "
    "na/north-america, south-america, asia, apac, oceania, africa, middle-east): offers in its "
    "countries"
)

#: How an advisor row's reason opens when its speed rests on a board its source does not state (the
#: advisor writes it, the CLI's picks line finds it by it).
BOARD_ASSUMED = "board assumed "


def plural(count: float | str | None, noun: str, many: str | None = None) -> str:
    """``noun`` as it reads after ``count``: singular after one ("1 user", "1 request/s"), else plural
    ("0 users", "0.5 users", "8 users": ``many``, else ``noun`` + "s"). The caller prints the figure;
    ``count`` may be that text ("1" from ``f"{0.9996:.3g}"``), so the noun agrees with what is read."""
    one = count.strip() == "1" if isinstance(count, str) else count == 1
    return noun if one else (many or noun + "s")


def and_list(items: Sequence[str], shown: int | None = None) -> str:
    """ "A", "A and B", "A, B and C"; with ``shown``, at most that many named: "A, B, C and 4 more"."""
    if shown is not None and len(items) > shown:
        return f"{', '.join(items[:shown])} and {len(items) - shown} more"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def money3(usd: float) -> str:
    """An amount of dollars to three significant figures, a trailing zero kept ('$2.30' beside '$1.11',
    never '$2.3'), whole dollars with thousands separators from $100 ('$1,234', never '$1.23e+03'),
    '<$0.001' below a tenth of a cent: the unit costs ($/M tokens, $/1k images) on every face."""
    if usd >= 99.95:
        return f"${usd:,.0f}"
    if usd < 0.001:
        return "<$0.001" if usd > 0 else "$0"
    return f"${usd:#.3g}".rstrip(".")


def token_count(x: float) -> str:
    """A token or image count as a renter writes it: 300M, 1.5B, 20,000 (999.6M is 1B: three significant
    figures never round up into an exponent)."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if x >= size * 0.9995:
            return f"{x / size:.3g}{suffix}"
    return f"{x:,.0f}"


def rate_text(x: float) -> str:
    """A request rate as a renter reads it: two significant figures, never in exponent form (754, 100 for
    99.6, 1.5, 0.031, 0.0015)."""
    if x >= 9.95:
        return f"{x:,.0f}"
    if x >= 1e-4:
        return f"{x:.2g}"  # 9.9 ... 0.0001: .2g writes these without an exponent
    return f"{x:.8f}".rstrip("0").rstrip(".") or "0"


def ms_text(ms: float) -> str:
    """A latency given in milliseconds, as a person reads it: '4.2 ms' and '850 ms' below ten seconds
    (TTFT and time per token are compared in ms), '23.4 s' below 90 s, then whole seconds with minutes or
    hours beside them ('235 s (3.9 min)', '7,200 s (2.0 h)'): a queued request's '234,709 ms' is four
    minutes. The caller says what an infinite wait means."""
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 10_000:
        return f"{ms:,.0f} ms"
    s = ms / 1000
    if s < 90:
        return f"{s:.1f} s"
    if s < 5400:
        return f"{s:,.0f} s ({s / 60:.1f} min)"
    return f"{s:,.0f} s ({s / 3600:.1f} h)"


#: Parts of an assumption's key written as their capitals when it is shown (:func:`key_words`).
_KEY_CAPITALS = {
    "kv": "KV",
    "moe": "MoE",
    "gemm": "GEMM",
    "cpu": "CPU",
    "tp": "TP",
    "ep": "EP",
    "fsdp": "FSDP",
}


def key_words(key: str) -> str:
    """An assumption's key as people read it, not snake_case: "kv_dtype" as "KV dtype", "estimate:
    fixed_costs" as "estimate: fixed costs" (the CLI's and the web page's labels; the JSON keeps the
    key)."""
    return " ".join(_KEY_CAPITALS.get(word, word) for word in key.replace("_", " ").split(" "))
