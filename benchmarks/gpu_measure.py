"""Measure HF transformers (eager PyTorch) on the GPU at hand for the calibration set (issue 8, optional).

    python benchmarks/gpu_measure.py OUT_DIR [--models llama-3.1-8b,qwen3-30b-a3b] [--budget-s 480]
    python benchmarks/gpu_measure.py OUT_DIR --tiny --device cpu      # a smoke run of the same code

Llama-3.1-8B and Qwen3-30B-A3B in bf16 with random weights built from their configs (gpuscout's own model
table, ``src/gpuscout/knowledge/data/models.csv``: no download), then, per model: batch-1 and batch-32
decode through ``generate()``, prefill of 2,048 and 8,192-token prompts (one forward pass), and LoRA
training steps (PEFT, AdamW). It needs PyTorch, transformers and PEFT (not gpuscout's dependencies: the
device machine has them) and writes, as it goes, so that a run cut short still leaves what it measured:

* ``OUT_DIR/measured_rows.csv``: one row per figure in the schema of ``benchmarks/data/measurements.csv``,
  each marked ``MEASURED here`` in its notes with the script, the library versions and the GPU, ready to
  be appended to the calibration set;
* ``OUT_DIR/log.txt``: what ran, with every timing.

How each figure is taken (CUDA-synchronised wall clock, the median of the repeats after a warm-up):

* decode tokens/s: two ``generate()`` calls with the same prompt and 2 lengths of greedy output (no end
  token, so every sequence generates exactly that many); the difference in new tokens over the difference
  in time, so the prompt's prefill and generate()'s set-up cancel out (decode only);
* prefill tokens/s: one forward pass over the prompt that keeps the last position's logits only;
* LoRA tokens/s: (micro-batch x sequence length) / the time of one step (forward, backward, AdamW on the
  adapters), and the peak memory the step allocated.

Random weights give random tokens, which change neither the shapes nor the work of any kernel.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime as dt
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MODEL_TABLE = REPO / "src" / "gpuscout" / "knowledge" / "data" / "models.csv"
CALIBRATION = REPO / "benchmarks" / "data" / "measurements.csv"
SCRIPT = "gpuscout benchmarks/gpu_measure.py"
DEFAULT_MODELS = ("llama-3.1-8b", "qwen3-30b-a3b")
# the transformers model type of each family in the model table that this script builds
MODEL_TYPES = {
    "llama3.1": "llama",
    "llama3.2": "llama",
    "llama3": "llama",
    "qwen3_moe": "qwen3_moe",
    "qwen3": "qwen3",
}
# Names the calibration set uses for GPUs this script may meet (torch's device name -> the CSV's)
GPU_NAMES = {"NVIDIA H200": "H200 SXM 141GB", "NVIDIA H100 80GB HBM3": "H100 SXM 80GB"}
# every linear layer of a dense model; only the attention of an MoE model (transformers may hold its
# experts as fused 3-D parameters, which LoRA's linear targets do not reach)
LORA_DENSE = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
LORA_MOE = ("q_proj", "k_proj", "v_proj", "o_proj")


def model_row(name: str) -> dict[str, str]:
    """The model table's row for ``name``."""
    with MODEL_TABLE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["name"] == name:
                return row
    raise SystemExit(f"model {name!r} is not in {MODEL_TABLE}")


def config_kwargs(row: dict[str, str], *, tiny: bool = False) -> tuple[str, dict[str, Any]]:
    """(transformers model type, config keyword arguments) for a model-table row; ``tiny``: the same
    architecture shrunk to a few layers and narrow widths, for a smoke run on a CPU."""
    family = row["family"]
    if family not in MODEL_TYPES:
        raise SystemExit(f"no transformers model type known for family {family!r}")
    kw: dict[str, Any] = {
        "hidden_size": int(row["hidden_size"]),
        "intermediate_size": int(row["intermediate_size"]),
        "num_hidden_layers": int(row["num_hidden_layers"]),
        "num_attention_heads": int(row["num_attention_heads"]),
        "num_key_value_heads": int(row["num_key_value_heads"]),
        "head_dim": int(row["head_dim"]),
        "vocab_size": int(row["vocab_size"]),
        "max_position_embeddings": int(row["max_position_embeddings"]),
        "tie_word_embeddings": row["tie_word_embeddings"].strip().lower() == "true",
    }
    experts = int(row["num_experts"] or 0)
    if experts:
        kw.update(
            num_experts=experts,
            num_experts_per_tok=int(row["experts_per_token"]),
            moe_intermediate_size=int(row["moe_intermediate_size"]),
            norm_topk_prob=True,
            decoder_sparse_step=1,
            mlp_only_layers=[],
        )
    if tiny:
        kw.update(
            hidden_size=128,
            intermediate_size=256,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=32,
            vocab_size=512,
        )
        if experts:
            kw.update(num_experts=8, num_experts_per_tok=2, moe_intermediate_size=64)
    return MODEL_TYPES[family], kw


def csv_header() -> list[str]:
    """The calibration set's columns (its file's first line), so the rows append to it as they are."""
    with CALIBRATION.open(newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh))


class Recorder:
    """Rows and log lines, written to OUT_DIR as they come."""

    def __init__(self, out: Path, context: dict[str, str]) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.header = csv_header()
        self.rows_path = out / "measured_rows.csv"
        self.log_path = out / "log.txt"
        self.context = context
        with self.rows_path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow(self.header)
        self.log_path.write_text("", encoding="utf-8")

    def log(self, text: str) -> None:
        print(text, flush=True)
        with self.log_path.open("a", encoding="utf-8") as fh:
            fh.write(text + "\n")

    def row(self, **fields: Any) -> None:
        base = {
            "framework": self.context["framework"],
            "gpu": self.context["gpu"],
            "gpu_count": "1",
            "precision": "BF16",
            "source": self.context["source"],
        }
        values = {**base, **{k: str(v) for k, v in fields.items()}}
        values["notes"] = f"MEASURED here ({self.context['stamp']}); {values.get('notes', '')}".rstrip("; ")
        missing = set(values) - set(self.header)
        if missing:
            raise ValueError(f"not a calibration column: {sorted(missing)}")
        with self.rows_path.open("a", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow([values.get(col, "") for col in self.header])


def _median_time(fn: Callable[[], Any], sync: Callable[[], None], repeats: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@contextlib.contextmanager
def guarded(rec: Recorder, label: str, sync: Callable[[], None]) -> Iterator[None]:
    """Run one measurement; a failure (an out-of-memory, an API a library version lacks) is logged with
    its traceback and the run goes on to the next one, so one lease yields every figure it can."""
    try:
        yield
    except Exception:  # any failure of one measurement must not lose the others
        rec.log(f"{label}: FAILED\n{traceback.format_exc()}")
        try:
            import torch

            sync()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except Exception:  # a broken device: the next stage will say so
            pass


def cpu_model() -> str:
    """The host processor's model name (Linux), else the platform's word for it."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def log_ceilings(rec: Recorder, device: Any) -> float | None:
    """The GPU's own ceilings in this run, logged beside the figures: a device-to-device copy (bytes read
    and written) and a bf16 8192^3 matrix product, each the median of 5 after a warm-up. Returns the host's
    time per eager CUDA operation (1,000 in-place adds on one element, launched back to back), which sets
    the pace of eager decoding: a slower host makes every eager figure here slower."""
    import torch

    if device.type != "cuda":
        return None
    sync = torch.cuda.synchronize
    one = torch.zeros(1, device=device)

    def launches() -> None:
        for _ in range(1000):
            one.add_(1.0)

    launch_us = _median_time(launches, sync, repeats=5) / 1000 * 1e6
    a = torch.empty(2**30, dtype=torch.uint8, device=device)  # 1 GiB
    b = torch.empty_like(a)
    t = _median_time(lambda: b.copy_(a), sync, repeats=5)
    x = torch.randn(8192, 8192, dtype=torch.bfloat16, device=device)
    y = torch.randn(8192, 8192, dtype=torch.bfloat16, device=device)
    tm = _median_time(lambda: x @ y, sync, repeats=5)
    props = torch.cuda.get_device_properties(device)
    rec.log(
        f"ceilings: copy {2 * a.numel() / t / 1e9:.0f} GB/s (read + write), bf16 matmul "
        f"{2 * 8192**3 / tm / 1e12:.0f} TFLOP/s; {props.name}, {props.multi_processor_count} SMs, "
        f"{props.total_memory / 2**30:.1f} GiB; host {launch_us:.1f} us per eager op launch"
    )
    return launch_us


def measure_decode(
    model: Any,
    ids: Callable[[int, int], Any],
    batch: int,
    short: int,
    long: int,
    scale: float,
    common: dict[str, str],
    rec: Recorder,
    sync: Callable[[], None],
    prompt_len: int = 128,
) -> None:
    """Decode tokens/s at ``batch``: the difference of two greedy ``generate()`` lengths. The longer one
    is cut so that its extra decode steps take about 6 s at most (a slow engine still gives its figure in
    time); a one-token call times the prompt's prefill, so that a long prompt does not cut it short."""
    import torch

    prompt = ids(batch, prompt_len)
    mask = torch.ones_like(prompt)

    def gen(n: int) -> None:
        with torch.inference_mode():
            model.generate(
                input_ids=prompt,
                attention_mask=mask,
                max_new_tokens=n,
                min_new_tokens=n,
                do_sample=False,
                use_cache=True,
            )

    n_short = max(2, int(short * scale))
    t_short = _median_time(lambda: gen(n_short), sync, repeats=2)
    t_one = _median_time(lambda: gen(1), sync, repeats=1, warmup=0)  # the prompt's prefill and one step
    per_token = max((t_short - t_one) / (n_short - 1), 1e-4)
    n_long = max(n_short + 2, min(int(long * scale), n_short + int(6.0 / per_token)))
    t_long = _median_time(lambda: gen(n_long), sync, repeats=2, warmup=0)
    new = n_long - n_short
    rate = batch * new / max(t_long - t_short, 1e-9)
    rec.log(
        f"{common['model']}: decode batch {batch}: {rate:.1f} tokens/s "
        f"(t={t_short:.3f}/{t_long:.3f} s, {n_short}/{n_long} new)"
    )
    rec.row(
        **common,
        task="inference",
        batch=batch,
        context_in=prompt_len,
        context_out=n_long,
        metric="decode_tokens_per_s",
        value=f"{rate:.2f}",
        unit="tokens/s",
        notes=(
            f"decode only: {batch} x {new} new tokens over the time difference of two greedy generate() "
            f"calls ({n_short} and {n_long} new tokens, {prompt_len}-token "
            f"random prompts, no end token), median of 2 after a warm-up; "
            + ("tokens/s summed over the batch; " if batch > 1 else "")
            + rec.context["env"]
        ),
    )


def measure_prefill(
    model: Any,
    ids: Callable[[int, int], Any],
    length: int,
    scale: float,
    common: dict[str, str],
    rec: Recorder,
    sync: Callable[[], None],
) -> None:
    """Prefill tokens/s: one forward pass over a ``length``-token prompt, last position's logits only."""
    import torch

    n = max(16, int(length * scale))
    prompt = ids(1, n)

    def forward() -> None:
        with torch.inference_mode():
            model(input_ids=prompt, use_cache=False, logits_to_keep=1)

    t = _median_time(forward, sync, repeats=3)
    rec.log(f"{common['model']}: prefill {n}: {n / t:.0f} tokens/s ({t * 1000:.1f} ms)")
    rec.row(
        **common,
        task="inference",
        batch=1,
        context_in=n,
        context_out=0,
        metric="prefill_tokens_per_s",
        value=f"{n / t:.1f}",
        unit="tokens/s",
        notes=f"one forward pass over a {n}-token random prompt, last position's logits only, no KV "
        f"cache kept; median of 3 after a warm-up; {rec.context['env']}",
    )


def measure_model(name: str, args: argparse.Namespace, rec: Recorder, deadline: float) -> None:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    row = model_row(name)
    model_type, kw = config_kwargs(row, tiny=args.tiny)
    device = torch.device(args.device)
    dtype = torch.bfloat16
    config = AutoConfig.for_model(model_type, **kw)

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize()

    t0 = time.perf_counter()
    with device:  # the weights are made where they run (random init on the GPU: seconds, not minutes)
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
    model.eval()
    params_b = sum(p.numel() for p in model.parameters()) / 1e9
    experts_impl = getattr(model.config, "_experts_implementation", None)
    rec.log(
        f"{name}: built {params_b:.2f}B parameters in {time.perf_counter() - t0:.1f} s ({model_type}"
        + (f", experts implementation {experts_impl}" if experts_impl else "")
        + ")"
    )
    gen_cfg = model.generation_config
    gen_cfg.eos_token_id = None
    gen_cfg.pad_token_id = 0
    common = {
        "model": row["hf_id"].split("/")[-1],
        "params_b": f"{params_b:.2f}" if args.tiny else row["official_total_params_b"] or f"{params_b:.2f}",
        "arch_notes": "MoE" if int(row["num_experts"] or 0) else "dense GQA",
    }
    if args.tiny:
        common["model"] += " (tiny smoke config)"
    scale = 0.1 if args.tiny else 1.0
    vocab = kw["vocab_size"]

    def ids(batch: int, length: int) -> Any:
        return torch.randint(1, vocab, (batch, length), device=device)

    # --- decode: batch 1, 8 and 32, the difference of two output lengths
    prompt_len = max(8, int(args.prompt * scale))
    for batch, short, long in ((1, 32, 160), (8, 16, 80), (32, 16, 80)):
        if time.perf_counter() > deadline:
            rec.log(f"{name}: out of time budget before decode at batch {batch}")
            return
        with guarded(rec, f"{name}: decode batch {batch}", sync):
            measure_decode(model, ids, batch, short, long, scale, common, rec, sync, prompt_len)
    if args.decode_only:
        return
    # --- prefill: one forward pass, last position's logits only
    for length in (2048, 8192):
        if time.perf_counter() > deadline:
            rec.log(f"{name}: out of time budget before prefill {length}")
            return
        with guarded(rec, f"{name}: prefill {length}", sync):
            measure_prefill(model, ids, length, scale, common, rec, sync)
    if name in args.full_ft:
        with guarded(rec, f"{name}: full fine-tuning", sync):
            measure_full(name, model, common, rec, sync, scale, deadline)
    if time.perf_counter() > deadline:
        rec.log(f"{name}: out of time budget before the LoRA step")
        return
    with guarded(rec, f"{name}: LoRA", sync):
        measure_lora(name, model, row, common, args, rec, sync, scale, deadline)


def measure_full(
    name: str,
    model: Any,
    common: dict[str, str],
    rec: Recorder,
    sync: Callable[[], None],
    scale: float,
    deadline: float,
) -> None:
    """Full fine-tuning steps in pure bf16: AdamW on every parameter with its two moments in bf16 (the
    parameters' dtype; no fp32 master copy), without and with activation checkpointing. The optimizer
    and the gradients are freed afterwards, so the LoRA runs start from the bare model."""
    import torch

    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(params, lr=1e-5)
    what = "full fine-tuning, AdamW on every parameter, bf16 parameters and moments (no fp32 master), "
    try:
        runs = ((2, 2048, False), (4, 2048, True))
        train_runs(name, model, optim, runs, "finetune-full", what, common, rec, sync, scale, deadline)
    finally:
        if getattr(model, "is_gradient_checkpointing", False):
            model.gradient_checkpointing_disable()
        optim.zero_grad(set_to_none=True)
        optim.state.clear()
        del optim, params
        model.eval()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def measure_lora(
    name: str,
    model: Any,
    row: dict[str, str],
    common: dict[str, str],
    args: argparse.Namespace,
    rec: Recorder,
    sync: Callable[[], None],
    scale: float,
    deadline: float,
) -> None:
    """LoRA training steps: without activation checkpointing, then (dense models) with it at a larger
    micro-batch, which is how a renter fits a longer run on one GPU."""
    import torch
    from peft import LoraConfig, get_peft_model

    moe = int(row["num_experts"] or 0) > 0
    targets = LORA_MOE if moe else LORA_DENSE
    peft_model = get_peft_model(
        model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=list(targets))
    )
    peft_model.train()
    trainable = [p for p in peft_model.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(trainable, lr=1e-4)
    runs = ((1, 2048, False),) if moe else ((2, 2048, False), (4, 2048, True))
    what = f"LoRA r=16 alpha 32 on {', '.join(targets)} (PEFT), bf16 base frozen, AdamW on the adapters, "
    train_runs(
        name,
        peft_model,
        optim,
        runs,
        "finetune-lora",
        what,
        common,
        rec,
        sync,
        scale,
        deadline,
        frozen_base=True,
    )


def train_runs(
    name: str,
    model: Any,
    optim: Any,
    runs: tuple[tuple[int, int, bool], ...],
    task: str,
    what: str,
    common: dict[str, str],
    rec: Recorder,
    sync: Callable[[], None],
    scale: float,
    deadline: float,
    *,
    frozen_base: bool = False,
) -> None:
    """Time ``runs`` (micro-batch, sequence length, activation checkpointing) of one training method in
    turn, each guarded, until the time budget ends; checkpointing, once on, stays on (runs with it come
    last). Over a ``frozen_base`` (LoRA) the inputs must require gradients for checkpointing to reach
    the adapters."""
    for micro, seq, checkpointing in runs:
        if time.perf_counter() > deadline:
            rec.log(f"{name}: out of time budget before {task} {micro}x{seq}")
            return
        with guarded(rec, f"{name}: {task} {micro}x{seq} checkpointing={checkpointing}", sync):
            if checkpointing:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
                if frozen_base:
                    model.enable_input_require_grads()
            tokens = max(32, int(seq * scale))
            train_step(model, optim, micro, tokens, checkpointing, task, what, common, rec, sync)


def train_step(
    peft_model: Any,
    optim: Any,
    micro: int,
    seq: int,
    checkpointing: bool,
    task: str,
    what: str,
    common: dict[str, str],
    rec: Recorder,
    sync: Callable[[], None],
) -> None:
    """Time one training configuration (``what`` says which, for the notes): tokens/s of a whole step and
    the allocator's peak memory."""
    import torch

    device = next(peft_model.parameters()).device
    batch = torch.randint(1, peft_model.config.vocab_size, (micro, seq), device=device)

    def step() -> None:
        out = peft_model(input_ids=batch, labels=batch)
        out.loss.backward()
        optim.step()
        optim.zero_grad(set_to_none=True)

    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    t = _median_time(step, sync, repeats=3)
    tokens_s = micro * seq / t
    peak = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else float("nan")
    rec.log(
        f"{common['model']}: {task} step {micro}x{seq} checkpointing={checkpointing}: "
        f"{tokens_s:.0f} tokens/s ({t:.3f} s), peak {peak:.1f} GiB"
    )
    what += (
        "gradient checkpointing (non-reentrant), " if checkpointing else "no gradient checkpointing, "
    ) + f"one GPU; micro-batch {micro} x {seq} random tokens (labels = inputs); "
    run = {**common, "task": task, "batch": micro, "context_in": seq, "context_out": ""}
    rec.row(
        **run,
        metric="train_tokens_per_s",
        value=f"{tokens_s:.1f}",
        unit="tokens/s",
        notes=f"{what}tokens per step / step time (forward, backward, optimizer), median of 3 after a "
        f"warm-up; {rec.context['env']}",
    )
    if peak == peak:  # not NaN
        rec.row(
            **run,
            metric="peak_memory_gb",
            value=f"{peak:.2f}",
            unit="GiB",
            notes=f"{what}torch.cuda.max_memory_allocated over the timed steps (allocator peak, not the "
            f"reserved pool); {rec.context['env']}",
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--device", default="cuda")
    ap.add_argument(
        "--full-ft",
        default="",
        help="models (comma-separated) that also get full fine-tuning steps (small ones)",
    )
    ap.add_argument(
        "--prompt", type=int, default=128, help="prompt tokens of the decode runs (the KV cache read)"
    )
    ap.add_argument("--decode-only", action="store_true", help="decode runs only (no prefill, no training)")
    ap.add_argument("--tiny", action="store_true", help="shrunk configs, a smoke run of the same code")
    ap.add_argument("--budget-s", type=float, default=480.0, help="stop starting new measurements after this")
    args = ap.parse_args(argv)
    args.full_ft = {m.strip() for m in args.full_ft.split(",") if m.strip()}
    try:
        import torch
        import transformers
    except ImportError as exc:
        print(f"needs PyTorch, transformers and PEFT: {exc}", file=sys.stderr)
        return 2
    deadline = time.perf_counter() + args.budget_s
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device: use --device cpu (with --tiny) for a smoke run", file=sys.stderr)
        return 2
    raw_gpu = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else f"CPU {platform.machine()}"
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    env = f"torch {torch.__version__}, transformers {transformers.__version__}, sdpa attention, {raw_gpu}"
    context = {
        "framework": f"HF transformers {transformers.__version__} (eager PyTorch {torch.__version__}, sdpa)",
        "gpu": GPU_NAMES.get(raw_gpu, raw_gpu),
        "source": f"{SCRIPT} ({stamp[:10]})",
        "stamp": f"{SCRIPT}, {stamp}",
        "env": env,
    }
    rec = Recorder(args.out, context)
    rec.log(f"{env}; models {args.models}; budget {args.budget_s:g} s")
    with guarded(rec, "ceilings", torch.cuda.synchronize if args.device.startswith("cuda") else lambda: None):
        launch_us = log_ceilings(rec, torch.device(args.device))
        if launch_us is not None:
            context["env"] += f", host {cpu_model()}: {launch_us:.1f} us per eager op launch"
    if args.device.startswith("cuda"):
        torch.cuda.empty_cache()
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        if time.perf_counter() > deadline:
            rec.log(f"out of time budget before {name}")
            break
        with guarded(rec, name, lambda: None):
            measure_model(name, args, rec, deadline)
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
