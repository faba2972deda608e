"""The accelerator table and the name resolver.

The table (``data/accelerators.csv``) is curated from the shared reference table: every row keeps its
source and a confidence marker ("verified" = figures read in the cited source, "partly-verified",
"recalled" = from a vendor datasheet not re-read).

``resolve_gpu`` accepts the names users, providers and benchmark tables write ("H100", "NVIDIA H100 80GB
HBM3", "h100-sxm5", "a100 80gb pcie", "RTX 4090 24GB", "4090", "tpu-v5e"...). Resolution rules:

1. Exact match (after normalisation) of a canonical name or alias -> that accelerator, ``exact``.
2. Otherwise the name is parsed into a family ("h100", "a100", "rtx4090"...), an optional form factor
   (SXM / PCIe / NVL / OAM), an optional memory size ("80GB", "80G", "80 GB") and an optional memory type
   ("HBM3"). The family's variants are filtered by what the name states. One left -> exact. Several left
   -> the family's documented default (e.g. "H100" -> H100-SXM, "A100" -> A100-SXM4-80GB,
   "V100" -> V100-SXM2-16GB) with ``exact=False`` and a note saying what was assumed. A series name
   is the family of its generations ("TPU" -> TPU-v6e, "Gaudi" -> Gaudi3: the newest in the table).
   The same holds for a part whose siblings are not in the table ("A800" -> A800-PCIe-80GB,
   "RTX 4060 Ti" -> RTX4060Ti-16GB) until the name states what tells them apart.
3. A stated memory size must match: "A100 40GB" never resolves to an 80 GB part, and "RTX 4090 48GB"
   (a modded card) is an error listing the known variants, because its memory differs from any known part.
4. Anything else raises ``UnknownNameError`` with the closest canonical names and aliases.

Parenthesised remarks ("A100 SXM 80GB (330W cap)", "GB200 (NVL72 rack)") are ignored apart from a memory
size, memory type or "GCD" ("MI250X (one GCD)" -> MI250X-GCD, half a module as software sees it).

Editions count as variants where one part ships in several (the RTX PRO 6000 Blackwell: Server Edition,
Workstation Edition, Max-Q): "Server"/"Workstation"/"WS"/"WK"/"Max-Q" pick the edition, and a name that
states none resolves to the Server Edition (what clouds rack) with ``exact=False``. Elsewhere those words
say nothing about the part.

A superchip's stated CPU memory is not the GPU's: "GH200 480GB" names the Grace CPU's 480 GB LPDDR5X,
so it resolves like a bare "GH200" (the default, inexact, saying so).
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass, replace
from importlib import resources

from gpuscout.errors import KnownNames, UnknownNameError, closest, fold_name
from gpuscout.knowledge.accelerator_types import Accelerator

_DATA_FILE = "accelerators.csv"

# Words that say nothing about which part it is.
_NOISE = frozenset(
    {
        "nvidia",
        "geforce",
        "tesla",
        "amd",
        "instinct",
        "quadro",
        "intel",
        "habana",
        "google",
        "cloud",
        "aws",
        "gpu",
        "gpus",
        "hgx",
        "dgx",
        "generation",
        "blackwell",
        "edition",
        "accelerator",
        "card",
        "graphics",
        "grace",
        "hopper",
        "superchip",
        "nvl72",
        "nvl36",
        "nvl4",
        "rack",
        "x1",
        "1x",
    }
)
_MEMORY_TYPES = frozenset({"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr6", "gddr6x", "gddr7"})
_FORM_WORDS = {
    "sxm": "sxm",
    "sxm2": "sxm",
    "sxm3": "sxm",
    "sxm4": "sxm",
    "sxm5": "sxm",
    "sxm6": "sxm",
    "pcie": "pcie",
    "nvl": "nvl",
    "oam": "oam",
}
# Edition words: variants of the parts in _EDITION_FAMILIES, noise for every other part.
_EDITION_WORDS = {
    "server": "server",
    "workstation": "workstation",
    "ws": "workstation",
    "wk": "workstation",
    "maxq": "maxq",
}
_EDITION_FAMILIES = frozenset({"rtxpro6000"})
_EDITION_SUFFIXES = {"-Server": "server", "-WS": "workstation", "-MaxQ": "maxq"}
# Superchips whose stated memory may be the CPU's (Grace LPDDR5X), not the GPU's HBM.
_HOST_MEMORY_GB: dict[str, frozenset[float]] = {"gh200": frozenset({480.0})}
_MEMORY_RE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z0-9])")
_PAREN_RE = re.compile(r"\(([^)]*)\)")
_COUNT_RE = re.compile(r"\d{1,3}x|x\d{1,3}")
_COUNT_SUFFIX_RE = re.compile(r"(?:(?<=\d)|(?<=\d[a-z]))x\d{1,2}$")  # "sxm5x8", "a10gx1"; not "rtx5090"

# Family -> variant chosen when the name does not say which (in order of preference).
# These follow what the bare name means in clouds and benchmark tables.
_FAMILY_DEFAULTS: dict[str, tuple[str, ...]] = {
    "h100": ("H100-SXM", "H100-PCIe", "H100-NVL"),
    "h200": ("H200-SXM", "H200-NVL"),
    "gh200": ("GH200-96GB", "GH200-144GB"),
    "a100": ("A100-SXM4-80GB", "A100-SXM4-40GB", "A100-PCIe-80GB", "A100-PCIe-40GB"),
    "v100": ("V100-SXM2-16GB", "V100-SXM2-32GB", "V100-PCIe-16GB", "V100-PCIe-32GB"),
    "p100": ("P100-PCIe-16GB", "P100-SXM2-16GB"),
    "h800": ("H800-SXM", "H800-PCIe"),
    # RTX PRO 6000 Blackwell: clouds rack the Server Edition (passive); workstations carry the others
    "rtxpro6000": ("RTXPRO6000-Server", "RTXPRO6000-WS", "RTXPRO6000-MaxQ"),
    # "RTX 6000 96GB" is an RTX PRO 6000 of an unstated edition
    "rtx6000": ("RTXPRO6000-Server",),
    "6000": ("RTXPRO6000-Server",),
    # a series name (_SERIES) states no generation: read as the newest in the table, the note names the rest
    "tpu": ("TPU-v6e", "TPU-v5p", "TPU-v5e", "TPU-v4"),
    "gaudi": ("Gaudi3", "Gaudi2"),
    "trainium": ("Trainium2", "Trainium1"),
}

# Series whose parts are generations with names of their own ("TPU v5e", "Gaudi 3"): the series name
# ("TPU", "Google Cloud TPU", "Gaudi") is a family name like "A100", covering every part whose own
# family (as :func:`_parse` reads its name) starts with the prefix, where the table has several.
_SERIES: dict[str, str] = {"tpu": "tpuv", "gaudi": "gaudi", "trainium": "trainium"}

# Compact names that mean several different parts: an "ambiguous" error unless a memory size
# picks one of them ("RTX 6000 24GB" is the Quadro, "RTX 6000 48GB" the Ada card).
_AMBIGUOUS: dict[str, tuple[str, ...]] = {
    # Quadro RTX 6000 (Turing, 24 GB), RTX 6000 Ada (48 GB), RTX PRO 6000 Blackwell (96 GB).
    "rtx6000": ("Quadro-RTX6000", "RTX6000-Ada", "RTXPRO6000-Server", "RTXPRO6000-WS", "RTXPRO6000-MaxQ"),
    "6000": (
        "Quadro-RTX6000",
        "RTX6000-Ada",
        "RTXPRO6000-Server",
        "RTXPRO6000-WS",
        "RTXPRO6000-MaxQ",
        "A6000",
    ),
}

# Parts whose siblings are not in the table. A name that reaches one of them without stating what
# tells the siblings apart resolves to it like a documented default: ``exact=False`` with a note.
# canonical name -> (what the name must state, the siblings not in the table)
_UNLISTED_SIBLINGS: dict[str, tuple[tuple[str, ...], str]] = {
    "A800-PCIe-80GB": (("form factor", "memory size"), "A800 SXM4 80GB, A800 40GB Active"),
    "A2000-6GB": (("memory size",), "RTX A2000 12GB"),
    "RTX3060-12GB": (("memory size",), "RTX 3060 8GB"),
    "RTX4060Ti-16GB": (("memory size",), "RTX 4060 Ti 8GB"),
}

# "Quadro" is noise ("Quadro P4000" is the P4000) except before "RTX": "Quadro RTX 6000" is one part,
# while "RTX 6000" alone is ambiguous.
_QUADRO_RTX_RE = re.compile(r"quadro[\s_\-/,+:]*rtx")


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome of resolving a GPU name: the accelerator, whether the name pinned it down, and why."""

    accelerator: Accelerator
    exact: bool
    note: str = ""
    # the table's other variants the name could mean (inexact only): "A100" -> A100-SXM4-40GB,
    # A100-PCIe-40GB, A100-PCIe-80GB; "A100 PCIe" -> A100-PCIe-40GB
    others: tuple[str, ...] = ()
    # what the name states that is not the GPU's ("480 GB is the Grace CPU's LPDDR5X, ..."); "" if none
    aside: str = ""


@dataclass(frozen=True, slots=True)
class _Failure:
    suggestions: tuple[str, ...] | None  # None: compute the closest names only when an error is raised
    ambiguous: bool = False


@dataclass(frozen=True, slots=True)
class _Parsed:
    family: str
    form: str | None
    memory_gb: float | None
    memory_type: str | None
    compact: str  # whole normalised name without spaces (family + form + memory)


def _tokens(text: str) -> list[str]:
    text = text.lower().replace("pci-e", "pcie").replace("pci express", "pcie")
    text = re.sub(r"max[\s_\-]?q\b", "maxq", text)
    text = _QUADRO_RTX_RE.sub("quadrortx", text)
    text = re.sub(r"[\s_\-/,+:]+", " ", text)
    return text.split()


def _parse(name: str) -> _Parsed:
    """Split a GPU name into family, form factor, memory size and memory type (look-alike characters
    folded: ``H１００`` is ``H100``)."""
    text = fold_name(name).lower()
    extra: list[str] = []
    for inner in _PAREN_RE.findall(text):
        mem = _MEMORY_RE.search(inner)
        if mem:
            extra.append(f"{mem.group(1)}gb")
        extra.extend(t for t in _tokens(inner) if t in _MEMORY_TYPES or t == "gcd")
    text = _PAREN_RE.sub(" ", text)
    memory: float | None = None
    found = _MEMORY_RE.search(text)
    if found is None and extra:
        found = _MEMORY_RE.search(" ".join(extra))
    if found:
        memory = float(found.group(1))
        text = _MEMORY_RE.sub(" ", text)
    tokens = _tokens(text) + [t for t in extra if not t.endswith("gb")]
    form: str | None = None
    memory_type: str | None = None
    family: list[str] = []
    editions: list[str] = []
    for raw in tokens:
        # GPU counts ("8x H100", "gpu_1x_h100_sxm5", "H100_sxm5x8", "A10Gx1") say nothing of the part
        tok = _COUNT_SUFFIX_RE.sub("", raw)
        if tok in _NOISE or tok in {"one", "of"} or _COUNT_RE.fullmatch(tok):
            continue
        if tok in _MEMORY_TYPES:
            memory_type = tok
        elif tok in _EDITION_WORDS:
            editions.append(_EDITION_WORDS[tok])
        elif tok in _FORM_WORDS:
            # NVL wins over PCIe ("H100 NVL PCIe" is the NVL part)
            if form != "nvl":
                form = _FORM_WORDS[tok]
        else:
            family.append(tok)
    fam = "".join(family)
    if editions and fam in _EDITION_FAMILIES:
        # the edition is what tells these variants apart (all are PCIe cards); "Max-Q Workstation
        # Edition" is the Max-Q card
        form = "maxq" if "maxq" in editions else editions[-1]
    mem_txt = f"{memory:g}gb" if memory is not None else ""
    compact = fam + (form or "") + mem_txt + (memory_type or "")
    return _Parsed(fam, form, memory, memory_type, compact)


def _form_of(acc: Accelerator) -> str | None:
    ff = acc.form_factor.lower()
    for suffix, edition in _EDITION_SUFFIXES.items():
        if acc.name.endswith(suffix):
            return edition
    if acc.name.endswith("-NVL"):
        return "nvl"
    if "sxm" in ff:
        return "sxm"
    if "oam" in ff:
        return "oam"
    if "pcie" in ff:
        return "pcie"
    return None


def _opt_float(text: str) -> float | None:
    text = text.strip()
    return float(text) if text else None


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value not in {"true", "false"}:
        raise ValueError(f"expected True/False, got {text!r}")
    return value == "true"


def _row_to_accelerator(row: dict[str, str]) -> Accelerator:
    year = row["release_year"].strip()
    return Accelerator(
        name=row["name"],
        vendor=row["vendor"],
        memory_gb=float(row["memory_gb"]),
        memory_type=row["memory_type"],
        bandwidth_gbps=float(row["bandwidth_gbps"]),
        fp32_tflops=_opt_float(row["fp32_tflops"]),
        tf32_tflops=_opt_float(row["tf32_tflops"]),
        bf16_tflops=_opt_float(row["bf16_tflops"]),
        fp16_tflops=_opt_float(row["fp16_tflops"]),
        fp8_tflops=_opt_float(row["fp8_tflops"]),
        int8_tops=_opt_float(row["int8_tops"]),
        fp4_tflops=_opt_float(row["fp4_tflops"]),
        fp8_supported=_bool(row["fp8_supported"]),
        fp4_supported=_bool(row["fp4_supported"]),
        interconnect=row["interconnect"].strip() or None,
        interconnect_gbps=_opt_float(row["interconnect_gbps"]),
        tdp_w=_opt_float(row["tdp_w"]),
        architecture=row["architecture"],
        compute_capability=row["compute_capability"].strip(),
        form_factor=row["form_factor"],
        release_year=int(year) if year else None,
        kind=row["kind"],
        source=row["source"],
        confidence=row["confidence"],
        notes=row["notes"],
        aliases=tuple(a.strip() for a in row["aliases"].split(";") if a.strip()),
        full_name=row["full_name"],
        usable_memory_mib=_opt_int(row.get("usable_memory_mib")),
        usable_memory_source=(row.get("usable_memory_source") or "").strip(),
    )


def _opt_int(text: str | None) -> int | None:
    """An optional integer column (``None``/blank: not recorded; a row appended without it is blank)."""
    text = (text or "").strip()
    return int(text) if text else None


@functools.cache
def all_accelerators() -> tuple[Accelerator, ...]:
    """Every accelerator in the curated table, in table order."""
    text = resources.files("gpuscout.knowledge").joinpath("data", _DATA_FILE).read_text(encoding="utf-8")
    return tuple(_row_to_accelerator(row) for row in csv.DictReader(io.StringIO(text)))


def accelerator_names() -> tuple[str, ...]:
    """Canonical names, in table order."""
    return tuple(a.name for a in all_accelerators())


@dataclass(frozen=True, slots=True)
class _Index:
    by_name: dict[str, Accelerator]
    exact: dict[str, Accelerator]  # compact normalised canonical names and aliases
    families: dict[str, tuple[Accelerator, ...]]
    forms: dict[str, str | None]


@functools.cache
def _index() -> _Index:
    by_name = {a.name: a for a in all_accelerators()}
    exact: dict[str, Accelerator] = {}
    families: dict[str, list[Accelerator]] = {}
    for acc in all_accelerators():
        for label in (acc.name, acc.full_name, *acc.aliases):
            parsed = _parse(label)
            other = exact.get(parsed.compact)
            if other is not None and other is not acc:
                raise ValueError(f"accelerator alias {label!r} is claimed by {other.name} and {acc.name}")
            exact[parsed.compact] = acc
            members = families.setdefault(parsed.family, [])
            if acc not in members:
                members.append(acc)
    for series, prefix in _SERIES.items():
        parts = [a for a in all_accelerators() if _parse(a.name).family.startswith(prefix)]
        if series not in families and len(parts) > 1:
            families[series] = parts
    return _Index(
        by_name=by_name,
        exact=exact,
        families={k: tuple(v) for k, v in families.items()},
        forms={a.name: _form_of(a) for a in all_accelerators()},
    )


#: What an unknown GPU name with no close known one is answered with: the parts most rented, one of
#: each kind (an error lists them as known names, not as the closest).
EXAMPLE_GPUS = ("H100-SXM", "H200-SXM", "A100-SXM4-80GB", "L40S", "RTX4090", "MI300X")


def _suggestions(name: str) -> list[str]:
    """Closest canonical names: the stated family's variants first, then by spelling (names, aliases,
    and family names such as "H100", whose variants all come in: "H1000" -> the H100s before B100)."""
    families = _index().families
    owner: dict[str, tuple[str, ...]] = {a.name: (a.name,) for a in all_accelerators()}
    owner.update({al: (a.name,) for a in all_accelerators() for al in a.aliases})
    owner.update({fam: tuple(a.name for a in members) for fam, members in families.items()})
    found: list[str] = []
    parsed = _parse(name)
    if parsed.family:
        found = [a.name for a in families.get(parsed.family, ())]
    for label in closest(name, owner, n=12):
        found.extend(n for n in owner[label] if n not in found)
    if not found:  # nothing close ("foo"): a few known names, said as such, rather than none at all
        return KnownNames(a for a in EXAMPLE_GPUS if a in owner)
    return found[:6]


def _memory_matches(acc: Accelerator, memory_gb: float) -> bool:
    return abs(acc.memory_gb - memory_gb) <= 1.0


def resolve_gpu_detail(name: str, *, field: str = "gpu", memory_gb: float | None = None) -> Resolution:
    """Resolve a GPU name, saying whether the name pinned the variant down (see the module docstring).

    ``memory_gb``, when the caller knows it (a provider's listed GPU memory), acts as if the name
    stated it: it picks the variant, and a part with different memory (a modded 48 GB RTX 4090) is an
    error rather than silently the stock part.
    """
    if not isinstance(name, str) or not name.strip():
        raise UnknownNameError(field, str(name), accelerator_names()[:6])
    if memory_gb is not None:
        stated = _parse(name).memory_gb
        if stated is None:
            name = f"{name} {memory_gb:g}GB"
        elif abs(stated - memory_gb) > 1.0:
            raise UnknownNameError(field, f"{name} with {memory_gb:g} GB", _suggestions(name))
    found = _resolve(name)
    if isinstance(found, _Failure):
        hints = found.suggestions if found.suggestions is not None else _suggestions(name)
        raise UnknownNameError(field, name, hints, ambiguous=found.ambiguous)
    return found


def find_gpu(name: str) -> Resolution | None:
    """Like :func:`resolve_gpu_detail` without raising: ``None`` when the name is unknown or ambiguous.

    For feeds that resolve thousands of names and drop the unknown ones: no closest-name search is
    made for a message nobody reads (an unknown name costs about what a known one does).
    """
    if not isinstance(name, str) or not name.strip():
        return None
    found = _resolve(name)
    return None if isinstance(found, _Failure) else found


def _single(acc: Accelerator, parsed: _Parsed, name: str) -> Resolution:
    """The one table part a name's family leaves; inexact when its unlisted siblings are not ruled out."""
    siblings = _UNLISTED_SIBLINGS.get(acc.name)
    if siblings is None:
        return Resolution(acc, exact=True)
    needed, others = siblings
    stated = {"form factor": parsed.form is not None, "memory size": parsed.memory_gb is not None}
    unstated = [what for what in needed if not stated[what]]
    if not unstated:
        return Resolution(acc, exact=True)
    note = (
        f"{' and '.join(unstated)} not stated in {name!r}; assumed {acc.name} "
        f"(other variants, not in the table: {others})"
    )
    return Resolution(acc, exact=False, note=note)


@functools.lru_cache(maxsize=4096)
def _resolve(name: str) -> Resolution | _Failure:
    """Resolve without raising, so that failures are cached too (feeds repeat unknown names)."""
    index = _index()
    if name in index.by_name:
        return Resolution(index.by_name[name], exact=True)
    parsed = _parse(name)
    if not parsed.family:
        return _Failure(None)
    hit = index.exact.get(parsed.compact)
    if hit is not None:
        return Resolution(hit, exact=True)
    if parsed.family in _AMBIGUOUS and parsed.memory_gb is None:
        return _Failure(tuple(_AMBIGUOUS[parsed.family]), ambiguous=True)
    host_note = ""
    if parsed.memory_gb is not None and parsed.memory_gb in _HOST_MEMORY_GB.get(parsed.family, ()):
        host_note = f"; {parsed.memory_gb:g} GB is the Grace CPU's LPDDR5X, not the GPU's memory"
        parsed = replace(parsed, memory_gb=None)
    members = index.families.get(parsed.family)
    if parsed.family in _AMBIGUOUS:
        members = tuple(index.by_name[n] for n in _AMBIGUOUS[parsed.family])
    if not members:
        return _Failure(None)
    candidates = list(members)
    if parsed.form is not None:
        candidates = [a for a in candidates if index.forms[a.name] in (parsed.form, None)]
    if parsed.memory_gb is not None:
        candidates = [a for a in candidates if _memory_matches(a, parsed.memory_gb)]
    if parsed.memory_type is not None:
        typed = [a for a in candidates if a.memory_type.lower() == parsed.memory_type]
        candidates = typed or candidates
    if not candidates:
        return _Failure(tuple(a.name for a in members))
    if len(candidates) == 1:
        return _single(candidates[0], parsed, name)
    preference = _FAMILY_DEFAULTS.get(parsed.family, ())
    for default in preference:
        chosen = next((a for a in candidates if a.name == default), None)
        if chosen is not None:
            series = parsed.family in _SERIES  # its parts told apart by generation, whatever else differs
            unstated = ["generation"] if series else []
            if not series and parsed.form is None and len({index.forms[a.name] for a in candidates}) > 1:
                editions = all(index.forms[a.name] in _EDITION_SUFFIXES.values() for a in candidates)
                unstated.append("edition" if editions else "form factor")
            if not series and parsed.memory_gb is None and len({a.memory_gb for a in candidates}) > 1:
                unstated.append("memory size")
            what = " and ".join(unstated) or "variant"
            others = tuple(a.name for a in candidates if a is not chosen)
            note = (
                f"{what} not stated in {name!r}; assumed {chosen.name} (other variants: {', '.join(others)})"
            )
            aside = host_note.removeprefix("; ")
            return Resolution(chosen, exact=False, note=note + host_note, others=others, aside=aside)
    return _Failure(tuple(a.name for a in candidates), ambiguous=True)


def resolve_gpu(
    name: str | Accelerator, *, field: str = "gpu", memory_gb: float | None = None
) -> Accelerator:
    """The accelerator a name means; raises ``UnknownNameError`` (with closest names) if unknown/ambiguous.

    An ``Accelerator`` passes through unchanged (so callers can accept names or objects).
    """
    if isinstance(name, Accelerator):
        return name
    return resolve_gpu_detail(name, field=field, memory_gb=memory_gb).accelerator


def gpu_family(name: str, *, field: str = "gpu") -> tuple[str, ...]:
    """Canonical accelerators a user's GPU name covers, in table order.

    A name that pins the variant down ("H100 SXM", "A100 PCIe 40GB") gives that one; a family name
    ("H100", "A100-80GB", "A100 PCIe") gives the variants it can mean: the part the resolver reads it
    as and the others it names (:attr:`Resolution.others`), so what the name states (form factor,
    memory size, memory type) narrows the list as it narrows :func:`assumed_variant_warning`'s
    ("A100 PCIe" -> A100-PCIe-40GB, A100-PCIe-80GB; "H100" -> H100-SXM, H100-PCIe, H100-NVL).
    Unknown names raise UnknownNameError with the closest known names.
    """
    found = resolve_gpu_detail(name, field=field)
    if found.exact:
        return (found.accelerator.name,)
    covered = {found.accelerator.name, *found.others}
    return tuple(a.name for a in all_accelerators() if a.name in covered)


def gpu_family_members(name: str) -> tuple[Accelerator, ...] | None:
    """The variants a family name covers ("H100" -> H100-SXM, H100-PCIe, H100-NVL; an ambiguous
    "RTX 6000" -> its parts), in table order; ``None`` when the name is one accelerator (or unknown).

    What a GPU page lists for a family name (``gpu_view`` and the API's ``/gpus/{name}`` use this one).
    The same parts as :func:`gpu_family` and :func:`assumed_variant_warning` name: what the name states
    narrows all three alike ("A100 PCIe": the PCIe parts)."""
    try:
        found = resolve_gpu_detail(name)
    except UnknownNameError as exc:
        if exc.ambiguous and exc.suggestions:
            by_name = _index().by_name
            return tuple(by_name[s] for s in exc.suggestions if s in by_name) or None
        return None
    if found.exact:
        return None
    names = gpu_family(name)
    if len(names) < 2:
        return None
    by_name = _index().by_name
    return tuple(by_name[n] for n in names if n in by_name)


#: Modules that software sees as several GPUs, and the device each is: an MI250X OAM module is two
#: GCDs, each its own ROCm device with 64 GB at 1.6 TB/s (the MI250X row's note; the MI250X-GCD row is
#: that device). No kernel spans both, so a module is timed as its devices, not as one 128 GB part.
MODULE_DEVICES: dict[str, tuple[str, int]] = {"MI250X": ("MI250X-GCD", 2)}


def software_devices(acc: Accelerator, modules: int) -> tuple[Accelerator, int, str]:
    """(device, count, note) for ``modules`` x ``acc`` as software sees them: the accelerator and count
    as given where each is one device; else its devices (2 x MI250X-GCD per MI250X) and the note saying
    so."""
    found = MODULE_DEVICES.get(acc.name)
    if found is None:
        return acc, modules, ""
    name, per_module = found
    device = resolve_gpu(name)
    count = modules * per_module
    note = (
        f"{acc.name} is {per_module} GPUs to software ({per_module} x {device.name}: "
        f"{device.memory_gb:g} GB at {device.bandwidth_gbps:,.0f} GB/s each): {modules} "
        f"{'module' if modules == 1 else 'modules'} timed as {count} x {device.name}"
    )
    return device, count, note


def as_software_sees(
    name: str | Accelerator, acc: Accelerator, modules: int | None = None
) -> tuple[Accelerator, int, str]:
    """(device, count, warning) for ``modules`` x ``acc`` as software sees them (:func:`software_devices`;
    ``modules`` None: a workload that runs on one GPU, an image pipeline or a speech model, gets one of a
    module's devices), with the warning an answer gives: the variant the GPU ``name`` was read as
    (:func:`assumed_variant_warning`) and what the module is to software."""
    if modules is None:
        device, count, _ = software_devices(acc, 1)
        note = (
            f"{acc.name} is {count} GPUs to software: timed on one of them ({device.name}, "
            f"{device.memory_gb:g} GB at {device.bandwidth_gbps:,.0f} GB/s)"
            if device is not acc
            else ""
        )
        count = 1
    else:
        device, count, note = software_devices(acc, modules)
    return device, count, "; ".join(x for x in (assumed_variant_warning(name), note) if x)


def assumed_variant_warning(name: str | Accelerator, *, field: str = "gpu") -> str:
    """What an answer for the GPU ``name`` says when the name does not pin one part down: the variant it
    was read as and the others it could mean, with each one's memory where they differ ("gpu 'A100' read
    as A100-SXM4-80GB (80 GiB); the family also has A100-SXM4-40GB (40 GiB), ...: name the variant for its
    memory and bandwidth"); "" for an accelerator or a name that is exact.

    The one place every estimate (and so every face: the Python API, the CLI, the web API) takes the
    words from, so that a renter who typed "A100" cannot miss that the figures are one variant's. Raises
    ``UnknownNameError`` as :func:`resolve_gpu` does."""
    if isinstance(name, Accelerator):
        return ""
    found = resolve_gpu_detail(name, field=field)
    if found.exact:
        return ""
    acc = found.accelerator
    by_name = _index().by_name
    others = [by_name[n] for n in found.others if n in by_name]
    if others:
        sizes = {a.memory_gb for a in (acc, *others)}

        def label(a: Accelerator) -> str:
            # the vendor's figure, which is GiB (an "80 GB" card holds 80 GiB), as every memory figure reads
            return f"{a.name} ({a.memory_gb:g} GiB)" if len(sizes) > 1 else a.name

        text = (
            f"{field} {name!r} read as {label(acc)}; the family also has "
            f"{', '.join(label(a) for a in others)}: name the variant for its memory and bandwidth"
        )
    else:  # siblings not in the table: the resolver's note says which
        text = f"{field} {name!r} read as {acc.name}: {found.note}"
    return f"{text}; {found.aside}" if found.aside else text
