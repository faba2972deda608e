"""Serving under load: throughput, TTFT and TPOT at a concurrency, a request rate or a burst.

Every request has a ``prompt`` of P tokens and generates ``output`` = O tokens. The engine runs at most
``cap`` sequences at once (KV memory at P+O tokens each, and the scheduler's ``max_num_seqs``); the rest
wait in a queue. How the running batch B turns into speed depends on how the engine batches:

* **Continuous batching with chunked prefill** (vLLM V1, SGLang, TensorRT-LLM, TGI 3): every step
  advances the B running sequences by one token and carries prompt chunks of newly admitted requests,
  up to a token budget M per step. A request's prompt rides in ceil(P / (M - B + 1)) steps alongside the
  other B-1 sequences and costs what it adds to those steps (its FLOPs, mostly: the weights are read
  anyway). Busy time per request = O * step(B) / B + that marginal prefill cost; requests/s is its
  inverse, TPOT the busy time each request's tokens are spread over (prefills of others included).
  A prefill-heavy run (32k-token prompts, 100 output tokens) is therefore set by prefill compute.
* **Continuous batching without chunking** (vLLM V0, TGI 1-2): prefills run as their own steps and stall
  decoding; each request costs O/B decode steps plus its share of a batched prefill.
* **Static batches** (HF transformers ``generate``, llama.cpp one slot, TensorRT-LLM 0.5-0.6 tables): a
  wave of B prompts is prefilled together, then decoded together.

Loads:

* ``concurrency`` C (closed loop: a new request as soon as one finishes, e.g. ``--max-concurrency``):
  B = min(C, cap); requests beyond the cap queue, waiting (C-B)/throughput (Little's law).
* ``rate`` lambda (open loop, Poisson arrivals): below capacity the running batch settles where
  B = lambda * latency(B) (solved by iteration), and TTFT adds the wait for the prefill budget (M/D/1);
  at or above capacity the queue grows without bound: throughput is the capacity, and TTFT is the
  wait accumulated over ``num_requests`` requests when that is given (else infinite).
* ``burst`` N (all requests submitted at once: offline ``benchmark_throughput``, ``request_rate=inf``):
  equal-length requests advance in waves of B; each wave prefills its B prompts, then decodes them.
  A closed loop of equal-length requests started together (``lockstep``: benchmark clients with fixed
  random lengths) keeps moving in such waves, so its TTFT includes half a wave's prefill.

Every TTFT also pays the engine's ``request_overhead_us`` (tokenisation, API server, admission).

``binding`` says which limit sets the answer: "kv_cache" / "scheduler" / "prefill" (the batch is capped
and requests queue), "queueing" (arrivals above capacity), else the largest part of the step:
"bandwidth", "compute", "scheduler" (fixed CPU / launch costs), "interconnect" or "prefill" (prompt
processing takes most of the busy time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from gpuscout.estimate.throughput import (
    Setup,
    StepTime,
    decode_step,
    mean_decode_step,
    prefill_compute_seconds,
    prefill_seconds,
)

LoadKind = Literal["concurrency", "rate", "burst"]
RATE_ITERATIONS = 40


@dataclass(frozen=True, slots=True)
class Load:
    """What the clients do: ``concurrency`` requests in flight, ``rate`` requests/s, or a ``burst``."""

    kind: LoadKind
    value: float  # requests in flight / requests per second / requests submitted at once
    num_requests: int | None = None  # finite runs (rate above capacity, or for reference)
    lockstep: bool = False  # equal-length requests sent together stay in lockstep (benchmark clients)


@dataclass(frozen=True, slots=True)
class ServingPoint:
    """The operating point of one engine replica under a load."""

    running: int  # sequences the engine decodes together
    in_flight: float  # requests in the system (running + waiting)
    cap: int  # the most sequences it can run here
    cap_reason: str  # what sets ``cap``: "kv_cache", "scheduler" or "prefill"
    requests_per_s: float
    output_tokens_per_s: float
    ttft_s: float  # mean, queueing included
    tpot_s: float  # mean time per output token after the first
    queue_s: float  # mean wait before a request is admitted
    step: StepTime  # decode step at ``running`` (prompt chunks included for chunked engines)
    binding: str
    saturated: bool  # requests wait for a slot or the queue grows


@dataclass(frozen=True, slots=True)
class _State:
    step: StepTime  # the plain decode step at this batch
    x: float  # requests/s when the engine is kept busy at this batch
    ttft_s: float  # service TTFT (no queue)
    tpot_s: float  # mean time between a request's tokens, prefill steps of others included
    prefill_share: float  # share of the busy time spent on prompts


def _state(st: Setup, running: int, prompt: int, output: int) -> _State:
    """Busy engine with ``running`` sequences: step, requests/s, TTFT and TPOT without queueing."""
    eng = st.engine
    o = max(1, output)
    b = max(1, running)
    ctx = prompt + o / 2.0
    if not eng.continuous_batching:
        step = mean_decode_step(st, b, prompt, o)
        pre = prefill_seconds(st, prompt, b) if prompt > 0 else 0.0
        wave = pre + o * step.total
        return _State(step, b / wave, pre + step.total, step.total, pre / wave)
    dec = decode_step(st, b, ctx)
    mean_step: float | None = None  # the mean step a decoding sequence lives through, when known
    if prompt <= 0:
        marginal, ttft_prefill = 0.0, 0.0
    elif eng.chunked_prefill:
        # The steady cycle, as a sum of step times (so more bandwidth or compute never slows it): a
        # request's prompt rides in `chunks` chunk steps, each carrying k prompts' chunks within the
        # token budget while the other b-k sequences decode; plain steps (b tokens each) decode the rest
        # of its o tokens. k is the fewest chunks per step at which chunk steps do not decode more
        # tokens than the requests need (more completions per step pack more prompts per step); when
        # even a full budget does, chunk steps alone set the pace (prefill-bound).
        budget = max(1.0, eng.prefill_chunk_tokens - (b - 1))
        chunks = math.ceil(prompt / budget)
        size = prompt / chunks
        k_max = max(1, min(b, int(budget // size)))
        k = min(k_max, max(1, math.ceil(chunks * b / (o + chunks))))
        packed = decode_step(st, b - k, ctx, prefill_tokens=k * size, prefill_context=prompt / 2.0)
        chunk_steps = chunks / k
        plain_steps = max(0.0, o - chunk_steps * (b - k)) / b
        marginal = chunk_steps * packed.total + plain_steps * dec.total - o * dec.total / b
        # every step gives each decoding sequence a token: its TPOT is the cycle's mean step
        mean_step = (chunk_steps * packed.total + plain_steps * dec.total) / (chunk_steps + plain_steps)
        with_chunk = decode_step(st, b - 1, ctx, prefill_tokens=size, prefill_context=prompt / 2.0)
        ttft_prefill = chunks * with_chunk.total
    else:
        # prefills run as their own steps (batched up to the token budget) and stall decoding
        k = max(1, min(b, eng.prefill_chunk_tokens // max(prompt, 1)))
        pre_k = prefill_seconds(st, prompt, k)
        marginal, ttft_prefill = pre_k / k, pre_k
    t_req = o * dec.total / b + marginal
    x = 1.0 / t_req
    ttft = 0.5 * dec.total + ttft_prefill + (dec.total if prompt > 0 else 0.0)
    if o <= 1:
        tpot = dec.total
    elif mean_step is not None:
        tpot = max(dec.total, mean_step)
    else:
        tpot = max(dec.total, (b / x - ttft) / (o - 1))
    return _State(dec, x, ttft, tpot, marginal / t_req)


def _binding_of(s: _State) -> str:
    """What most of the busy time goes to at this operating point."""
    step = s.step
    roof = max(step.memory, step.compute)
    decode = 1.0 - s.prefill_share
    parts = {
        "bandwidth" if step.memory >= step.compute else "compute": roof / max(step.total, 1e-12) * decode,
        "scheduler": step.fixed / max(step.total, 1e-12) * decode,
        "interconnect": step.comm / max(step.total, 1e-12) * decode,
        "prefill": s.prefill_share,
    }
    return max(parts, key=parts.__getitem__)


def serve(st: Setup, load: Load, prompt: int, output: int, cap: int, cap_reason: str) -> ServingPoint:
    """The operating point of ``st`` under ``load`` with at most ``cap`` sequences (``cap_reason``)."""
    o = max(1, output)
    cap = max(1, cap)
    if load.kind == "concurrency":
        if load.lockstep and st.engine.continuous_batching:
            point = _lockstep(st, load.value, prompt, o, cap, cap_reason)
        else:
            point = _closed_loop(st, load.value, prompt, o, cap, cap_reason)
    elif load.kind == "burst":
        point = _burst(st, int(load.value), prompt, o, cap, cap_reason)
    else:
        point = _open_loop(st, load.value, load.num_requests, prompt, o, cap, cap_reason)
    extra = st.engine.request_overhead_us * 1e-6
    if st.engine.multi_step > 1:
        # new requests are admitted only between multi-step runs: half a run of waiting on average
        extra += (st.engine.multi_step - 1) / 2.0 * point.step.total
    return replace(point, ttft_s=point.ttft_s + extra) if extra else point


def _wave(st: Setup, size: int, prompt: int, output: int) -> tuple[float, float, float, StepTime]:
    """One wave of ``size`` equal requests: (wave time, mean TTFT within it, mean TPOT, decode step)."""
    step = mean_decode_step(st, size, prompt, output)
    pre = prefill_seconds(st, prompt, size) if prompt > 0 else 0.0
    wave = pre + output * step.total
    # the wave's prompts finish prefilling one after another, then decode alongside the rest
    ttft = pre / 2.0 + step.total
    tpot = (wave - ttft) / (output - 1) if output > 1 else step.total
    return wave, ttft, tpot, step


def _lockstep(
    st: Setup, concurrency: float, prompt: int, output: int, cap: int, cap_reason: str
) -> ServingPoint:
    """Closed loop of equal requests started together: they move in waves of min(C, cap)."""
    c = max(1.0, concurrency)
    b = max(1, min(cap, math.ceil(c - 1e-9)))
    wave, ttft, tpot, step = _wave(st, b, prompt, output)
    x = b / wave
    queue = max(0.0, c - b) / x
    saturated = c > b
    binding = cap_reason if saturated else _binding_of(_state(st, b, prompt, output))
    return ServingPoint(
        b, c, cap, cap_reason, x, x * output, ttft + queue, tpot, queue, step, binding, saturated
    )


def _closed_loop(
    st: Setup, concurrency: float, prompt: int, output: int, cap: int, cap_reason: str
) -> ServingPoint:
    c = max(1.0, concurrency)
    running = max(1, min(cap, math.ceil(c - 1e-9)))
    s = _state(st, running, prompt, output)
    queue = max(0.0, c - running) / s.x
    saturated = c > running
    k = st.engine.max_waiting_steps
    if k > 1 and running > 1 and not saturated:
        # requests join a running batch only every k decode steps (TGI's max_waiting_tokens): each waits
        # k/2 steps on average, so of c clients only c * O / (O + k/2) have a request decoding at a time
        # (a queue longer than 1.2x the batch is admitted at once: the capped case above)
        waiting = k / 2.0
        running = max(1, round(running * output / (output + waiting)))
        s = _state(st, running, prompt, output)
        queue = waiting * s.step.total
    binding = cap_reason if saturated else _binding_of(s)
    return ServingPoint(
        running,
        c,
        cap,
        cap_reason,
        s.x,
        s.x * output,
        s.ttft_s + queue,
        s.tpot_s,
        queue,
        s.step,
        binding,
        saturated,
    )


def _burst(st: Setup, n: int, prompt: int, output: int, cap: int, cap_reason: str) -> ServingPoint:
    """N equal requests at once: waves of ``cap`` (the last one partial)."""
    n = max(1, n)
    b = min(n, cap)
    full, rest = divmod(n, b)
    waves = [b] * full + ([rest] if rest else [])
    start = ttft_sum = tpot_sum = wait_sum = 0.0
    first_step: StepTime | None = None
    for size in waves:
        wave, ttft, tpot, step = _wave(st, size, prompt, output)
        first_step = first_step or step
        wait_sum += size * start
        ttft_sum += size * (start + ttft)
        tpot_sum += size * tpot
        start += wave
    assert first_step is not None
    x = n / start
    saturated = n > cap
    binding = cap_reason if saturated else _binding_of(_state(st, b, prompt, output))
    return ServingPoint(
        b,
        float(n),
        cap,
        cap_reason,
        x,
        x * output,
        ttft_sum / n,
        tpot_sum / n,
        wait_sum / n,
        first_step,
        binding,
        saturated,
    )


def _open_loop(
    st: Setup, rate: float, num_requests: int | None, prompt: int, output: int, cap: int, cap_reason: str
) -> ServingPoint:
    full = _state(st, cap, prompt, output)
    if not math.isfinite(rate):
        return _burst(st, num_requests or cap, prompt, output, cap, cap_reason)
    if rate >= full.x:
        # arrivals above capacity: the engine runs full and the queue grows
        wait = num_requests / 2.0 * (1.0 / full.x - 1.0 / rate) if num_requests else math.inf
        in_flight = cap + (rate - full.x) * (wait if math.isfinite(wait) else 0.0)
        return ServingPoint(
            cap,
            in_flight,
            cap,
            cap_reason,
            full.x,
            full.x * output,
            full.ttft_s + wait,
            full.tpot_s,
            wait,
            full.step,
            "queueing",
            True,
        )
    # below capacity: Little's law fixed point B = rate * latency(B)
    running_f = max(1.0, rate * (prompt + output) * 1e-3)
    s = _state(st, 1, prompt, output)
    for _ in range(RATE_ITERATIONS):
        b = max(1, min(cap, round(running_f)))
        s = _state(st, b, prompt, output)
        latency = s.ttft_s + (output - 1) * s.tpot_s
        new = min(float(cap), max(1.0, rate * latency))
        if abs(new - running_f) < 0.5:
            running_f = new
            break
        running_f = 0.5 * (running_f + new)
    running = max(1, min(cap, round(running_f)))
    s = _state(st, running, prompt, output)
    # Poisson arrivals wait for the prefill budget: M/D/1 wait of the prompt's own prefill work
    service = prefill_compute_seconds(st, prompt) if prompt > 0 else 0.0
    rho = min(0.95, rate * service)
    wait = rho * service / (2.0 * (1.0 - rho)) if rho > 0 else 0.0
    # below capacity the engine idles between arrivals: steps run back to back only while there is work,
    # so a running request sees the plain decode step plus the prompts that arrive meanwhile
    busy = min(0.95, rate / s.x)
    tpot = s.step.total + (s.tpot_s - s.step.total) * busy
    return ServingPoint(
        running,
        rate * (s.ttft_s + wait + (output - 1) * tpot),
        cap,
        cap_reason,
        rate,
        rate * output,
        s.ttft_s + wait,
        tpot,
        wait,
        s.step,
        _binding_of(s),
        False,
    )
