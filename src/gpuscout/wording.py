"""Words that agree with the figures they follow, for every layer (it imports nothing from gpuscout).

The lowest layer of the import contract (``pyproject.toml``): the estimator, the catalog and the faces
pluralise through it, so that none spells "1 GPU(s)" or its own ``'s' if n != 1``.
"""

from __future__ import annotations

import math
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


def money_text(
    amount: float,
    *,
    beside: float | None = None,
    sign: str = "$",
    whole_from: float = math.inf,
    figures: int = 2,
) -> str:
    """An amount of dollars as every face writes it (the CLI's table, reasons and ``--explain``, the web
    page's table and cost breakdown): one rule, so that no face says a figure another contradicts.

    - From a cent: to the cent ('$0.52', '$1,234.50'), whole dollars from ``whole_from`` ('$25,381').
    - A positive amount under a cent said on its own (a total, a saving): ``figures`` significant
      figures ('$0.0019', '$0.000041'): a job of a fifth of a cent never reads "$0.00" nor "<$0.01".
    - A line item ``beside`` its total (a cost breakdown) is written to the total's precision: beside a
      total of a cent or more to the cent, and under a cent "<$0.01" ("$0.0030" beside "$199.13" is a
      precision the total has not); beside a total under a cent to that total's last decimal ('$0.0017'
      beside '$0.0019'), and below it "<$0.0001".

    ``sign`` precedes the figure ("" for a column headed USD: '<0.01'). A negative amount is the
    positive one's text after a minus."""
    if amount < 0:
        return "-" + money_text(-amount, beside=beside, sign=sign, whole_from=whole_from, figures=figures)
    if beside is not None:
        places = _places(abs(beside), 2)
        if 0 < amount < 10.0**-places:
            return f"<{sign}{10.0**-places:.{places}f}"
        return f"{sign}{amount:,.{places}f}"
    places = _places(amount, figures)
    if places > 2:
        return f"{sign}{amount:.{places}f}"
    return f"{sign}{amount:,.0f}" if amount >= whole_from else f"{sign}{amount:,.2f}"


def _places(amount: float, figures: int) -> int:
    """The decimals :func:`money_text` writes ``amount`` (not negative) to on its own: 2 from a cent (or
    for 0), else those of ``figures`` significant figures (0.0019: 4; 0.000041: 6); an amount that
    rounds up to a cent is written to the cent (0.00999: '$0.01', not '$0.0100')."""
    if not 0 < amount < 0.01 or not math.isfinite(amount):
        return 2
    places = figures - 1 - math.floor(math.log10(amount))
    if round(amount, places) >= 10.0 ** (math.floor(math.log10(amount)) + 1):
        places -= 1  # 0.000999 at two figures is 0.0010, not 0.00100
    return max(places, 2) if round(amount, places) < 0.01 else 2


def distinct_money(a: float, b: float, *, sign: str = "$", whole_from: float = math.inf) -> tuple[str, str]:
    """Two amounts said in one sentence, as :func:`money_text` writes them, with the figures it takes
    for them to read apart where they differ: "at $0.0019 would show a cheaper row" beside a cheapest
    "at $0.0019" read 0.001859 and 0.001896 ('$0.00186', '$0.00190')."""
    ta = money_text(a, sign=sign, whole_from=whole_from)
    tb = money_text(b, sign=sign, whole_from=whole_from)
    extra = 0
    while ta == tb and a != b and extra < 4:
        extra += 1
        places = max(_decimals(ta), _decimals(tb)) + 1
        places = 2 if places == 1 else places  # '$25,381' apart: '$25,381.20', never '$25,381.2'
        ta, tb = _at(a, places, sign), _at(b, places, sign)
    return ta, tb


def _decimals(text: str) -> int:
    return len(text.rpartition(".")[2]) if "." in text else 0


def _at(amount: float, places: int, sign: str) -> str:
    return ("-" if amount < 0 else "") + f"{sign}{abs(amount):,.{places}f}"
