"""How the body bits per weight of llama.cpp's GGUF mixes in ``gpuscout.estimate.precision`` are derived.

    python benchmarks/gguf_mix.py [--csv PATH]

A GGUF "file type" (Q4_K_M, IQ2_XS...) is not one block type: ``llama-quantize`` picks a type per
tensor, widening the tensors that hurt quality most (``attn_v``, some ``ffn_down`` layers, the output
matrix) and, for the 2-bit i-quants, the token embedding too. The rules below restate, for a dense
Llama-shaped model, what llama.cpp's ``llama_tensor_get_type_impl`` (``src/llama-quant.cpp``, read in
the copy vendored by llama-cpp-python 0.3.36) chooses per tensor role and layer; the bits of each
block type are its block size (``ggml-common.h``: Q4_K is 144 bytes per 256 weights = 4.5 bits).

Applied to Llama 3 70B (80 layers, hidden 8192, 8 KV heads of 128, MLP 28672, vocabulary 128256) they
reproduce the ten file sizes published for it (calibration CSV, ``model_size_gib`` rows, IQ2_XS to
Q8_0) within 0.05 %, so the body bits they give for the mixes nobody published a 70B size of (IQ1_S,
IQ2_M, IQ3_XXS, Q3_K_L...) are the same arithmetic, not a guess. The script prints the derived body
bits next to the ones ``precision.py`` carries and the derived sizes next to the published ones.

The same rules on Llama 3 8B (where the 70B size class's widening of ``attn_v`` does not apply) give
the sizes ``llama-quantize --help`` prints for it within 0.3 % for 14 of its 15 mixes (its Q2_K_S line
repeats Q2_K's 2.96G; the rules give 2.78).

Assumptions, stated: the i-quants were made with an importance matrix (llama.cpp refuses IQ1/IQ2
mixes without one, and published i-quants are made with one), the legacy and k-quants without; the
model is dense with a GQA ratio >= 4.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "src") not in sys.path:
    sys.path.insert(0, str(HERE.parent / "src"))

from gpuscout.estimate.precision import resolve_precision  # noqa: E402

# bits per weight of each ggml block type (bytes per block * 8 / weights per block, ggml-common.h)
BLOCK_BITS: dict[str, float] = {
    "Q2_K": 84 * 8 / 256,
    "Q3_K": 110 * 8 / 256,
    "Q4_K": 144 * 8 / 256,
    "Q5_K": 176 * 8 / 256,
    "Q6_K": 210 * 8 / 256,
    "Q8_0": 34 * 8 / 32,
    "Q4_0": 18 * 8 / 32,
    "Q4_1": 20 * 8 / 32,
    "Q5_0": 22 * 8 / 32,
    "Q5_1": 24 * 8 / 32,
    "IQ1_S": 50 * 8 / 256,
    "IQ1_M": 56 * 8 / 256,
    "IQ2_XXS": 66 * 8 / 256,
    "IQ2_XS": 74 * 8 / 256,
    "IQ2_S": 82 * 8 / 256,
    "IQ3_XXS": 98 * 8 / 256,
    "IQ3_S": 110 * 8 / 256,
    "IQ4_NL": 18 * 8 / 32,
    "IQ4_XS": 136 * 8 / 256,
}

# the block type a mix starts from (llama_ftype_get_default_type)
BASE_TYPE: dict[str, str] = {
    "Q4_0": "Q4_0",
    "Q4_1": "Q4_1",
    "Q5_0": "Q5_0",
    "Q5_1": "Q5_1",
    "Q8_0": "Q8_0",
    "Q2_K": "Q2_K",
    "Q2_K_S": "Q2_K",
    "Q3_K_S": "Q3_K",
    "Q3_K_M": "Q3_K",
    "Q3_K_L": "Q3_K",
    "Q4_K_S": "Q4_K",
    "Q4_K_M": "Q4_K",
    "Q5_K_S": "Q5_K",
    "Q5_K_M": "Q5_K",
    "Q6_K": "Q6_K",
    "IQ1_S": "IQ1_S",
    "IQ1_M": "IQ1_M",
    "IQ2_XXS": "IQ2_XXS",
    "IQ2_XS": "IQ2_XS",
    "IQ2_S": "IQ2_XS",
    "IQ2_M": "IQ2_S",
    "IQ3_XXS": "IQ3_XXS",
    "IQ3_XS": "IQ3_S",
    "IQ3_S": "IQ3_S",
    "IQ3_M": "IQ3_S",
    "IQ4_NL": "IQ4_NL",
    "IQ4_XS": "IQ4_XS",
}

# the 1- and 2-bit i-quant mixes, which have rules of their own
_LOWEST = {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M"}
_IQ2_WIDE = {"IQ2_S", "IQ2_M"}  # the two whose widened tensors go to IQ3_S rather than Q2_K
# attn_output widened per mix (dense models)
_ATTN_OUTPUT = {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K", "IQ3_M": "Q4_K"}

ROLES = ("q", "k", "v", "o", "gate", "up", "down")


def _more_bits(layer: int, layers: int) -> bool:
    """The layers a few mixes widen: the first and last eighth, and every third one between."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def _lowest_mix(mix: str, role: str, layer: int, layers: int, base: str) -> str:
    if role == "v":
        return "Q4_K"  # GQA >= 4
    if role == "down" and layer < layers // 8:
        return "IQ3_S" if mix in _IQ2_WIDE else "Q2_K"
    if role == "o" and mix in ("IQ1_S", "IQ1_M"):
        return "IQ2_XXS"
    if role == "o" and mix in _IQ2_WIDE:
        return "IQ3_S"
    return base


def _attn_v(mix: str, layer: int, layers: int, base: str, size_70b: bool) -> str:
    t = base
    if mix in ("Q2_K", "Q2_K_S", "IQ3_XXS", "IQ3_XS", "IQ3_S", "IQ3_M"):
        t = "Q4_K"  # GQA >= 4
    elif mix == "Q3_K_M":
        t = "Q5_K" if layer < 2 else "Q4_K"
    elif mix in ("Q3_K_L", "IQ4_NL", "IQ4_XS"):
        t = "Q5_K"
    elif mix in ("Q4_K_M", "Q5_K_M") and _more_bits(layer, layers):
        t = "Q6_K"
    elif mix == "Q4_K_S" and layer < 4:
        t = "Q5_K"
    return "Q5_K" if size_70b and t in ("Q3_K", "Q4_K") else t  # the 70B size class widens attn_v


def _ffn_down(mix: str, layer: int, layers: int, base: str) -> str:
    first_eighth = layer < layers // 8
    if mix == "Q2_K":
        return "Q3_K"
    if mix in ("Q2_K_S", "IQ3_M") and first_eighth:
        return "Q4_K"
    if mix == "Q3_K_M":
        return "Q5_K" if layer < layers // 16 else "Q4_K"
    if mix == "Q3_K_L":
        return "Q5_K"
    if mix in ("Q4_K_M", "Q5_K_M") and _more_bits(layer, layers):
        return "Q6_K"
    if mix == "Q4_K_S" and first_eighth:
        return "Q5_K"
    return base  # (Q4_0 / Q5_0 widen the first eighth to Q4_1 / Q5_1 only with an importance matrix)


def tensor_type(mix: str, role: str, layer: int, layers: int, *, size_70b: bool = True) -> str:
    """The block type of one body tensor (``role`` in :data:`ROLES`) of a layer, under a mix."""
    base = BASE_TYPE[mix]
    if mix in _LOWEST:
        return _lowest_mix(mix, role, layer, layers, base)
    if role == "v":
        return _attn_v(mix, layer, layers, base, size_70b)
    if role in ("q", "k"):
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(mix, base)
    if role == "down":
        return _ffn_down(mix, layer, layers, base)
    if role == "o":
        return _ATTN_OUTPUT.get(mix, base)
    if role in ("gate", "up") and mix == "IQ3_XS" and layers // 8 <= layer < 7 * layers // 8:
        return "IQ3_XXS"
    return base


def embedding_type(mix: str) -> str:
    if mix in ("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS"):
        return "Q2_K"
    if mix in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
        return "IQ3_S"
    return BASE_TYPE[mix]


def output_type(mix: str) -> str:
    if mix in _LOWEST or mix == "IQ3_XXS":
        return "Q5_K"
    return "Q8_0" if BASE_TYPE[mix] == "Q8_0" else "Q6_K"


# Llama 3 70B and 8B (config.json of meta-llama/Meta-Llama-3-70B and -8B)
LLAMA3_70B = {"layers": 80, "hidden": 8192, "kv": 1024, "mlp": 28672, "vocab": 128256}
LLAMA3_8B = {"layers": 32, "hidden": 4096, "kv": 1024, "mlp": 14336, "vocab": 128256}

# Llama 3 8B file sizes (GiB) printed by `llama-quantize --help` (QUANT_OPTIONS in
# tools/quantize/quantize.cpp, llama.cpp as vendored by llama-cpp-python 0.3.36)
QUANTIZE_HELP_8B: dict[str, float] = {
    "Q4_0": 4.34,
    "Q4_1": 4.78,
    "Q5_0": 5.21,
    "Q5_1": 5.65,
    "Q2_K": 2.96,
    "Q2_K_S": 2.96,
    "Q3_K_S": 3.41,
    "Q3_K_M": 3.74,
    "Q3_K_L": 4.03,
    "Q4_K_S": 4.37,
    "Q4_K_M": 4.58,
    "Q5_K_S": 5.21,
    "Q5_K_M": 5.33,
    "Q6_K": 6.14,
    "Q8_0": 7.96,
}


def derive(mix: str, shape: dict[str, int] = LLAMA3_70B) -> tuple[float, float]:
    """(body bits per weight, file size in GiB) of a mix on a dense Llama-shaped model."""
    n, h, kv, mlp = shape["layers"], shape["hidden"], shape["kv"], shape["mlp"]
    size_70b = n == 80  # llama.cpp names a Llama of 80 layers LLM_TYPE_70B (llama-model.cpp)
    params = {"q": h * h, "k": h * kv, "v": h * kv, "o": h * h, "gate": h * mlp, "up": h * mlp}
    params["down"] = h * mlp
    bits = weights = 0.0
    for layer in range(n):
        for role in ROLES:
            bits += params[role] * BLOCK_BITS[tensor_type(mix, role, layer, n, size_70b=size_70b)]
            weights += params[role]
    table = shape["vocab"] * h
    ends = table * (BLOCK_BITS[embedding_type(mix)] + BLOCK_BITS[output_type(mix)])
    norms = (2 * n + 1) * h * 32  # f32
    return bits / weights, (bits + ends + norms) / 8 / (1 << 30)


def published_sizes(path: Path) -> dict[str, float]:
    """Llama 3 70B GGUF file sizes (GiB) from the calibration CSV's ``model_size_gib`` rows."""
    out: dict[str, float] = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            if row["metric"] == "model_size_gib" and row["model"] == "Llama 3 70B":
                out[row["precision"].removeprefix("GGUF ").strip()] = float(row["value"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", type=Path, default=HERE / "data" / "measurements.csv")
    args = ap.parse_args(argv)
    published = published_sizes(args.csv)
    print(f"{'mix':8s} {'body bits':>9s} {'carried':>7s} {'70B GiB':>8s} {'published':>18s}", end=" ")
    print(f"{'8B GiB':>7s} {'--help':>18s}")
    for mix in BASE_TYPE:
        body, size = derive(mix)
        size_8b = derive(mix, LLAMA3_8B)[1]
        carried = resolve_precision(f"gguf-{mix.lower()}").bits_per_weight
        print(
            f"{mix:8s} {body:9.3f} {carried:7.3f} {size:8.2f} {_vs(size, published.get(mix))} "
            f"{size_8b:7.2f} {_vs(size_8b, QUANTIZE_HELP_8B.get(mix))}"
        )
    return 0


def _vs(derived: float, published: float | None) -> str:
    return f"{published:7.2f} ({100 * (derived / published - 1):+5.2f} %)" if published else " " * 18


if __name__ == "__main__":
    raise SystemExit(main())
