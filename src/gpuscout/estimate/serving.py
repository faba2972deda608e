"""Serving under load: throughput, TTFT and TPOT at a concurrency, a request rate or a burst.

Every request has a ``prompt`` of P tokens and generates ``output`` = O tokens. The engine runs at most
``cap`` sequences at once (KV memory at P+O tokens each, and the scheduler's ``max_num_seqs``); the rest
wait in a queue. How the running batch B turns into speed depends on how the engine batches:

* **Continuous batching with chunked prefill** (vLLM V1, SGLang, TensorRT-LLM, TGI 3): every step
  advances the B running sequences by one token and carries prompt chunks of newly admitted requests,
  up to a token budget M per step. A request's prompt rides in ceil(P / (M - B + 1)) steps alongside the
  other B-1 sequences (its TTFT); in a steady flow prompts pack into the budget back to back, so it costs
  P / (M - B + 1) full steps' worth of what it adds to those steps (its FLOPs, mostly: the weights are
  read anyway). Busy time per request = O * step(B) / B + that marginal prefill cost; requests/s is its
  inverse, TPOT the busy time each request's tokens are spread over (prefills of others included).
  A prefill-heavy run (32k-token prompts, 100 output tokens) is therefore set by prefill compute.
* **Continuous batching without chunking** (vLLM V0, TGI 1-2): prefills run as their own steps and stall
  decoding; each request costs O/B decode steps plus its share of a batched prefill (busy, as many
  prompts as the budget takes), but its TTFT's prefill step holds only the prompts that arrived with it.
* **Static batches** (HF transformers ``generate``, llama.cpp one slot, TensorRT-LLM 0.5-0.6 tables): a
  wave of B prompts is prefilled together, then decoded together.

Loads:

* ``concurrency`` C (closed loop: a new request as soon as one finishes, e.g. ``--max-concurrency``):
  B = min(C, cap); requests beyond the cap queue, waiting (C-B)/throughput (Little's law). A run of
  ``num_requests`` N starts with its first C requests at once: they are prefilled together (weight C/N
  in the mean TTFT), and the C-B of them that do not fit wait for the first completions, not for a
  full queue's. N <= C is a burst of N (the client never has more than N to send).
* ``rate`` lambda (open loop, Poisson arrivals): below capacity the running batch settles where
  B = lambda * latency(B) (solved by iteration), and TTFT adds the wait for the prefill budget (M/D/1);
  at or above capacity the queue grows without bound: throughput is the capacity, and TTFT is the
  wait accumulated over ``num_requests`` requests when that is given (else infinite): the first
  ``cap`` start at once, and a prefill-first scheduler queues the prompts for their prefill; the
  Poisson arrivals' wait for the prefill budget stays the floor (a higher rate never shortens it).
* ``burst`` N (all requests submitted at once: offline ``benchmark_throughput``, ``request_rate=inf``):
  equal-length requests advance in waves of B; each wave prefills its B prompts, then decodes them.
  A closed loop of equal-length requests started together (``lockstep``: benchmark clients with fixed
  random lengths) keeps moving in such waves: its first token comes out at the end of the prefill step
  that completes its prompt, so its TTFT includes the prefill of every prompt packed with or before
  its own (all of them when one step takes the whole wave).

A request arriving at a busy engine first waits for the step in progress: E[S^2] / 2E[S] over the
engine's steps (a long prefill-carrying step catches more arrivals than a short decode step). The
forward pass that processes a prompt's last token samples its first token. Every TTFT also pays the
engine's ``request_overhead_us`` (tokenisation, API server, admission).

A chunked engine whose token budget M per step counts decodes too (vLLM, TensorRT-LLM) runs at most
M O / (P + O) sequences in a steady flow (:func:`token_budget_cap`); one whose budget counts prompts
alone (SGLang, TGI, llama.cpp) at most the ~M O / P its prompts feed (:func:`prompt_fed_cap`): more
clients wait for a prompt slot.

``binding`` says which limit sets the answer: "kv_cache" / "scheduler" / "prefill" (the batch is capped
by memory, by ``max_num_seqs`` or by the token budget, requests queue, and more room would pay: see
:data:`CAP_MATTERS`), "queueing" (arrivals above capacity), else the largest part of the step:
"bandwidth", "compute", "overhead" (the step's fixed costs: kernel launches, CPU scheduling, and under
CUDA graphs the gaps between a layer's many small kernels), "interconnect" or "prefill" (prompt
processing takes most of the busy time). "scheduler" is only ever the cap on running sequences (the
fixed costs were once "scheduler" too, and a capped batch and a step of fixed costs read alike).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from gpuscout.estimate.engines import EngineProfile
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
    # output lengths vary around the mean as a chat dataset's do (ShareGPT): exponentially distributed,
    # so a finite run ends when its longest requests end, the batch thinning out meanwhile
    varied_output: bool = False

    @property
    def sends_all(self) -> bool:
        """Whether every request is sent at once: a burst, or clients allowed more in flight than the run
        has requests (they send them all)."""
        if self.kind == "burst":
            return True
        return self.kind == "concurrency" and bool(self.num_requests and self.num_requests <= self.value)


@dataclass(frozen=True, slots=True)
class ServingPoint:
    """The operating point of one engine replica under a load."""

    running: int  # sequences the engine decodes together
    in_flight: float  # requests in the system (running + waiting)
    cap: int  # the most sequences it can run here
    cap_reason: str  # what sets ``cap``: "kv_cache", "scheduler" or "prefill" (the token budget per step)
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


def _arrival_batch(st: Setup, most: int, arrivals: float, step: float) -> float:
    """Prompts an engine without chunking prefills in one step when they arrive one by one: the tagged
    one plus those that arrived in the same scheduling window (see :func:`_arrival_batch_seconds`)."""
    window = max(1, st.engine.multi_step) * step
    return min(float(most), 1.0 + max(0.0, arrivals) * window)


def _arrival_batch_seconds(st: Setup, prompt: int, most: int, arrivals: float, step: float) -> float:
    """Prefill step of an engine without chunking that takes the prompts waiting when it schedules.

    Requests arrive one by one (at ``arrivals`` per second: the request rate, or in a closed loop the
    completion rate), and such an engine (vLLM V0, TGI 1-2) schedules a prefill as soon as one waits:
    besides the tagged prompt, the batch holds those that arrived in the same scheduling window, on
    average arrivals x window (one decode step; ``multi_step`` steps when the scheduler runs once per
    multi-step run), at most ``most`` (the token budget). Four ShareGPT prompts/s against 13 ms steps:
    1.05 prompts, not the 18 prompts of 220 tokens a 4096-token budget could take."""
    k = _arrival_batch(st, most, arrivals, step)
    lo = max(1, math.floor(k))
    pre_lo = prefill_seconds(st, prompt, lo)
    if k <= lo:
        return pre_lo
    return pre_lo + (k - lo) * (prefill_seconds(st, prompt, lo + 1) - pre_lo)


@dataclass(frozen=True, slots=True)
class _ChunkPlan:
    """How a chunked-prefill engine running ``b`` sequences spreads a prompt over its steps."""

    chunks: int  # steps a prompt's own chunks take, the last one partial: its TTFT
    budget: float  # prompt tokens a full chunk carries (the step's budget less its decodes)
    steps: float  # step-equivalents of the budget its prompt takes in a steady flow: its cost
    size: float  # prompt tokens per chunk in a steady flow (a full budget, or the whole prompt)
    most_prompts: float  # prompt chunks one step's token budget carries (prompts chunk to fill it)
    prompts_needed: float  # prompt chunks a step must carry to replace the requests that complete


def _chunk_plan(eng: EngineProfile, b: int, prompt: int, od: int) -> _ChunkPlan:
    """The token budget per step, less the other sequences' decodes, and the prompt's share of it.

    A lone prompt's chunks take ``chunks`` = ceil(P / budget) steps (its TTFT). In a steady flow the
    scheduler fills what is left of a step with a chunk of the next prompt (vLLM, SGLang, llama.cpp's
    batch), so prompts pack into the budget contiguously: a prompt costs ``steps`` = P / budget full
    steps (at least one whole step: a shorter prompt is one chunk, several of them share a step), not
    ceil(P / budget). A request lives ``steps`` steps as a prompt and ``od`` as a decoding sequence, so
    of ``b`` running, ``steps b / (od + steps)`` are prompts at any step: the chunks a step must carry.
    The budget carries ``budget / size`` of them at most. 8,167-token prompts under vLLM's 8,192-token
    budget beside 31 decodes: 1.0007 full steps, as 8,161 tokens and then 6 beside the decodes, not
    2 half steps (which would hide a plain step's decodes in compute-bound steps, and serve more
    requests/s than 8,142-token prompts do)."""
    budget = max(1.0, eng.step_token_budget - (b - 1))
    chunks = math.ceil(prompt / budget)
    steps = max(1.0, prompt / budget)
    size = prompt / steps
    most = max(1.0, min(float(b), budget / size))
    return _ChunkPlan(chunks, budget, steps, size, most, steps * b / (od + steps))


def _own_chunks_seconds(st: Setup, others: int, ctx: float, prompt: int, plan: _ChunkPlan) -> float:
    """The steps a prompt's own chunks take (its TTFT's prefill), ``others`` sequences decoding beside
    them: ``chunks - 1`` steps carrying a full budget's chunk, then one carrying the rest, as vLLM,
    SGLang and llama.cpp's ``n_batch`` fill a step before they start the next. Every step reads all
    the weights: 2,049 tokens under a 2,048-token budget are a full step and then a 1-token one (a
    memory-bound step more than 2,048 tokens), not two steps of 1,024.5 (which hid the second weight
    read under the compute of the first). A chunk's tokens attend to the prompt before them: the full
    chunks to half of what they cover on average, the last one to the middle of its own span."""
    full = plan.chunks - 1
    done = full * plan.budget  # prompt tokens the full chunks carry
    last = decode_step(st, others, ctx, prefill_tokens=prompt - done, prefill_context=(done + prompt) / 2.0)
    if full <= 0:
        return last.total
    step = decode_step(st, others, ctx, prefill_tokens=plan.budget, prefill_context=done / 2.0)
    return full * step.total + last.total


def prompt_fed_cap(eng: EngineProfile, prompt: int, output: int) -> int | None:
    """The most sequences a chunked-prefill engine without :func:`token_budget_cap`'s rule (SGLang, TGI,
    llama.cpp) keeps busy in a steady flow of requests; None where no such limit applies (or it is above
    ``max_num_seqs``).

    Requests complete only as fast as the budget prefills their replacements: at most ``budget / P``
    prompts a step, so at most that many times ``O`` sequences can be decoding. The budget is the step's
    as :func:`_state` models it (:func:`_chunk_plan`: the step's tokens less its decodes), so the cap
    comes out near M O / (P + O). More clients do not run: they wait for a prompt slot (llama.cpp's
    slots, SGLang's and TGI's waiting queues). 64 clients of 16,000-token prompts and 300 output tokens on
    llama-server's 2,048-token iterations: 38 run, the rest queue; counted as running, their decodes
    inflated every step (phantom decodes) and requests/s fell as clients were added."""
    if not (eng.continuous_batching and eng.chunked_prefill) or eng.decodes_in_token_budget or prompt <= 0:
        return None
    od = max(1, output) - 1
    widest = _chunk_plan(eng, eng.max_num_seqs, prompt, od)
    if widest.prompts_needed <= widest.most_prompts:
        return None
    lo, hi = 1, eng.max_num_seqs  # fed at lo (one sequence always runs), not at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        plan = _chunk_plan(eng, mid, prompt, od)
        if plan.prompts_needed <= plan.most_prompts:
            lo = mid
        else:
            hi = mid
    return lo


def _residual_step(cycle: list[tuple[float, float]]) -> float:
    """Mean time from an arrival to the end of the step in progress, the steps being ``cycle``'s
    (count, duration) pairs: E[S^2] / (2 E[S]) (renewal theory: an arrival lands in a long step more
    often than in a short one). Plain decode steps of 20 ms alone: 10 ms; one 400 ms prefill step per
    nine of them: (0.16 + 9 x 0.0004) / (2 x 0.58) = 141 ms, not half the mean step (29 ms)."""
    n = sum(c for c, _ in cycle)
    first = sum(c * t for c, t in cycle)
    if n <= 0 or first <= 0:
        return 0.0
    return sum(c * t * t for c, t in cycle) / (2.0 * first)


def _state(st: Setup, running: int, prompt: int, output: int, arrivals: float | None = None) -> _State:
    """Busy engine with ``running`` sequences: step, requests/s, TTFT and TPOT without queueing.

    ``arrivals``: requests/s arriving (open loop); None: a closed loop, where a request arrives each time
    one completes."""
    eng = st.engine
    o = max(1, output)
    b = max(1, running)
    ctx = prompt + o / 2.0
    # decode tokens a request needs: the forward pass over its prompt's last token samples its first
    # (without a prompt the first token takes a decode step too)
    od = o - 1 if prompt > 0 else o
    if not eng.continuous_batching:
        step = mean_decode_step(st, b, prompt, o)
        pre = prefill_seconds(st, prompt, b) if prompt > 0 else 0.0
        wave = pre + o * step.total
        return _State(step, b / wave, pre + step.total, step.total, pre / wave)
    dec = decode_step(st, b, ctx)
    mean_step: float | None = None  # the mean step a decoding sequence lives through, when known
    cycle = [(1.0, dec.total)]  # (steps per completed request, step time): the engine's steps
    if prompt <= 0:
        marginal, ttft_prefill = 0.0, 0.0
    elif eng.chunked_prefill:
        # The steady cycle, as a sum of step times (so more bandwidth or compute never slows it): a
        # request's prompt rides in `steps` chunk steps (P / budget: prompts pack into the budget
        # contiguously), each carrying k prompts' chunks within the token budget while the other b-k
        # sequences decode; plain steps (b tokens each) decode the rest of its o tokens. k is the fewest
        # chunks per step at which chunk steps do not decode more tokens than the requests need (more
        # completions per step pack more prompts per step); when even a full budget does, chunk steps
        # alone set the pace (prefill-bound). Its own first token waits for all `chunks` of its steps.
        plan = _chunk_plan(eng, b, prompt, od)
        k = min(plan.most_prompts, max(1.0, plan.prompts_needed))
        packed = decode_step(st, b - k, ctx, prefill_tokens=k * plan.size, prefill_context=prompt / 2.0)
        chunk_steps = plan.steps / k
        plain_steps = max(0.0, od - chunk_steps * (b - k)) / b
        marginal = chunk_steps * packed.total + plain_steps * dec.total - od * dec.total / b
        # every step gives each decoding sequence a token: its TPOT is the mean step it decodes through.
        # Over its life (b cycles) it decodes through the others' chunk steps, chunk_steps x (b - k) of
        # them, and b x plain_steps plain steps, not through its own prompt's (those are its TTFT): alone
        # (b = 1) its TPOT is the plain decode step
        seen_chunks, seen_plain = chunk_steps * (b - k), plain_steps * b
        mean_step = (
            (seen_chunks * packed.total + seen_plain * dec.total) / (seen_chunks + seen_plain)
            if seen_chunks + seen_plain > 0
            else packed.total
        )
        ttft_prefill = _own_chunks_seconds(st, b - 1, ctx, prompt, plan)
        cycle = [(chunk_steps, packed.total), (plain_steps, dec.total)]
    else:
        # prefills run as their own steps (batched up to the token budget) and stall decoding; busy, the
        # engine batches as many prompts as the budget takes (throughput), but a request's first token
        # waits only for the prompts that arrived with it (TTFT)
        k = max(1, min(b, eng.prefill_chunk_tokens // max(prompt, 1)))
        pre_k = prefill_seconds(st, prompt, k)
        marginal = pre_k / k
        rate = arrivals if arrivals is not None else 1.0 / (od * dec.total / b + marginal)
        ttft_prefill = _arrival_batch_seconds(st, prompt, k, rate, dec.total)
        # the steps an arrival lands in: prefill steps of the prompts that arrive together, decode steps
        cycle = [(1.0 / _arrival_batch(st, k, rate, dec.total), ttft_prefill), (od / b, dec.total)]
    t_req = od * dec.total / b + marginal
    x = 1.0 / t_req
    # a request waits for the step in progress to end (none when it is alone: the engine idles); the
    # forward pass that processes its prompt's last token samples its first token (no decode step after)
    ttft = (_residual_step(cycle) if b > 1 else 0.0) + (ttft_prefill if prompt > 0 else dec.total)
    if o <= 1:
        tpot = dec.total
    elif mean_step is not None:
        tpot = max(dec.total, mean_step)
    else:
        tpot = max(dec.total, (b / x - ttft) / (o - 1))
    return _State(dec, x, ttft, tpot, marginal / t_req)


def _blended_state(st: Setup, running: float, prompt: int, output: int) -> tuple[_State, float]:
    """:func:`_state` at a mean of ``running`` sequences that is not a whole number (TGI's admission every
    ``max_waiting_steps`` leaves 1.67 of 2 clients decoding on average): the states at the two whole
    batches around it, weighed by how near each is, and the decode step weighed alike (seconds; the state
    keeps the nearer batch's step for its parts). Rounding it instead broke Little's law by up to 20 %
    (2 clients of 12-token prompts: 2 decoding and a 10-step admission wait, 2.4 clients' worth)."""
    lo = max(1, math.floor(running))
    share = running - lo
    low = _state(st, lo, prompt, output)
    if share <= 1e-9:
        return low, low.step.total
    high = _state(st, lo + 1, prompt, output)

    def mix(a: float, b: float) -> float:
        return a + share * (b - a)

    state = _State(
        low.step if share < 0.5 else high.step,
        mix(low.x, high.x),
        mix(low.ttft_s, high.ttft_s),
        mix(low.tpot_s, high.tpot_s),
        mix(low.prefill_share, high.prefill_share),
    )
    return state, mix(low.step.total, high.step.total)


def _binding_of(s: _State) -> str:
    """What most of the busy time goes to at this operating point."""
    step = s.step
    roof = max(step.memory, step.compute)
    decode = 1.0 - s.prefill_share
    parts = {
        "bandwidth" if step.memory >= step.compute else "compute": roof / max(step.total, 1e-12) * decode,
        "overhead": step.fixed / max(step.total, 1e-12) * decode,
        "interconnect": step.comm / max(step.total, 1e-12) * decode,
        "prefill": s.prefill_share,
    }
    return max(parts, key=parts.__getitem__)


#: A capped batch is what sets the answer only where more room would pay: lifting the cap (to twice the
#: running batch, at most the load) must raise requests/s by at least this share. Otherwise requests still
#: queue behind the cap, but the step's own largest part sets the pace: 32k-token prompts on a card whose
#: KV memory holds 6 of them are bound by prefill compute (an FP8 cache, twice the room, adds ~4 %).
CAP_MATTERS = 0.10


def _capped_binding(
    st: Setup, at_cap: _State, running: int, load: float, prompt: int, output: int, cap_reason: str
) -> str:
    """What binds a load that queues behind the cap of ``running`` sequences: the cap (``cap_reason``)
    where lifting it would raise requests/s by :data:`CAP_MATTERS` or more, else the step's largest part."""
    lifted = min(math.ceil(load - 1e-9), 2 * running)
    if cap_reason == "kv_cache":  # more memory would still stop at the engine's own cap
        lifted = min(lifted, st.engine.max_num_seqs)
    if lifted <= running:
        return cap_reason
    if _state(st, lifted, prompt, output).x >= (1.0 + CAP_MATTERS) * at_cap.x:
        return cap_reason
    return _binding_of(at_cap)


HARMONIC_EXACT = 8  # levels summed one by one before geometric bins
DRAIN_BINS = 12


def _harmonic(n: float) -> float:
    """H_n = 1 + 1/2 + ... + 1/n (asymptotic form beyond 50)."""
    if n <= 0:
        return 0.0
    if n <= 50:
        return sum(1.0 / k for k in range(1, int(n) + 1))
    return math.log(n) + 0.5772156649 + 1.0 / (2.0 * n) - 1.0 / (12.0 * n * n)


def _levels(b0: int) -> list[tuple[int, float, float]]:
    """(batch k at which to evaluate, sum of 1/j over the levels j it stands for, number of levels):
    levels 1..8 one by one, the rest in geometric bins (a step time is smooth in the batch)."""
    out = [(k, 1.0 / k, 1.0) for k in range(1, min(b0, HARMONIC_EXACT) + 1)]
    if b0 <= HARMONIC_EXACT:
        return out
    lo = float(HARMONIC_EXACT)
    ratio = (b0 / lo) ** (1.0 / DRAIN_BINS)
    for i in range(DRAIN_BINS):
        hi = b0 if i == DRAIN_BINS - 1 else lo * ratio
        a, b = math.floor(lo) + 1, math.floor(hi)
        if b >= a:
            out.append(
                (max(a, min(b, round(math.sqrt(a * b)))), _harmonic(b) - _harmonic(a - 1), b - a + 1.0)
            )
        lo = hi
    return out


def drain_seconds(st: Setup, b0: int, prompt: int, output: int) -> tuple[float, float]:
    """(seconds, mean TPOT) for ``b0`` running sequences to finish when output lengths are exponential
    with mean ``output`` (memoryless: whatever they generated already, each has ``output`` tokens left on
    average), under continuous batching.

    Why exponential: vLLM ``benchmark_serving`` and SGLang ``bench_serving`` give each ShareGPT request
    the length of its conversation's reply (unless ``--sharegpt-output-len`` fixes it), pruned to
    prompts of at most 1024 tokens and prompt + output of at most 2048. Chat replies run from a few
    tokens to over a thousand; an exponential of the same mean is the simplest spread as wide as its
    mean, and its expected longest of 1000 requests, 7.5 x the mean (~1,450 tokens for the ~194-token
    mean those runs report), stays inside the 2048-token pruning bound.

    With k running, the next one ends after ``output / k`` steps on average (the first of k exponential
    lifetimes), so E[time] = output * sum_{k=1..b0} step(k) / k: the batch thins out, but the fixed part
    of the step (the weights read) is paid for ``output * H_b0`` steps, not ``output`` (the mean-length
    model's wave). 1000 ShareGPT requests (mean 200 tokens), steps of 50 ms + 0.45 ms per sequence:
    200 x (0.05 x H_1000 + 0.00045 x 1000) = 200 x (0.37 + 0.45) = 165 s, against 200 x 0.5 = 100 s.
    The request leaving at level k decoded through levels b0..k for output / j steps each: its TPOT is
    their step times weighted by 1 / j; the mean TPOT averages that over the b0 requests."""
    ctx = prompt + output
    levels = _levels(max(1, b0))
    steps = [(k, w, n, decode_step(st, k, ctx).total) for k, w, n in levels]
    total = output * sum(w * t for _, w, _, t in steps)
    # TPOT of the request(s) leaving at each level: running sums from the top level down
    num = den = tpot_sum = 0.0
    for _, w, n, t in reversed(steps):
        num += w * t
        den += w
        tpot_sum += n * num / den
    return total, tpot_sum / max(1, b0)


def _varied_excess(st: Setup, b: int, prompt: int, output: int) -> tuple[float, float]:
    """(extra seconds, TPOT) of the last ``b`` requests of a finite run with exponential output lengths,
    against ``output`` steps at batch ``b``: continuous batching drains them (:func:`drain_seconds`); a
    static batch keeps every row until its longest output ends (HF generate): E[max] = output * H_b
    steps at batch ``b``."""
    o = max(1, output)
    plain = decode_step(st, b, prompt + o / 2.0).total
    if not st.engine.continuous_batching:
        return o * (_harmonic(b) - 1.0) * plain, plain
    drain, tpot = drain_seconds(st, b, prompt, o)
    return max(0.0, drain - o * plain), tpot


def token_budget_cap(eng: EngineProfile, prompt: int, output: int, steady: bool = True) -> int | None:
    """The most sequences a chunked-prefill engine can keep decoding under its token budget per step.

    vLLM's ``max_num_batched_tokens`` (V0 chunked prefill and V1) and TensorRT-LLM's ``max_num_tokens``
    count every token a step computes: one per decoding sequence, plus the prompt chunks. ``B``
    sequences decoding take ``B`` of the ``M`` tokens; in a steady flow of requests of ``P`` prompt and
    ``O`` output tokens, ``B / O`` of them complete per step and as many prompts must be prefilled per
    step to replace them, so ``B + B P / O <= M``: ``B <= M O / (P + O)``. When requests move in waves
    (a burst, or lockstep clients) the prompts are prefilled before the wave decodes and only ``B <= M``
    binds. None when the engine does not chunk (its prefills run as their own steps). An engine whose
    budget counts prompt tokens alone (SGLang ``chunked_prefill_size``, TGI ``max_batch_prefill_tokens``,
    llama.cpp: decodes run in their own batches or beside the budget) is capped by the prompts it can
    feed, in a steady flow only (:func:`prompt_fed_cap`). vLLM 0.6 with
    ``--max-num-batched-tokens 1024`` serving ShareGPT (220 + 200 tokens): 487 sequences at most, not
    the 1024 of ``--max-num-seqs`` (the scheduler would admit no prompt at all at 1024)."""
    if not (eng.continuous_batching and eng.chunked_prefill):
        return None
    if not eng.decodes_in_token_budget:
        return prompt_fed_cap(eng, prompt, output) if steady else None
    m = max(1, eng.prefill_chunk_tokens)
    if not steady:
        return m
    o = max(1, output)
    return max(1, math.floor(m * o / (max(0, prompt) + o)))


def serve_replicas(
    st: Setup,
    load: Load,
    replicas: int,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    steady: tuple[int, str] | None = None,
    *,
    batch: Callable[..., ServingPoint] | None = None,
) -> ServingPoint:
    """The mean operating point of ``replicas`` independent replicas of ``st`` sharing ``load``
    (``batch``: how one replica is served, :func:`serve` unless given).

    A request rate splits evenly (random balancing of Poisson arrivals is Poisson at rate / replicas).
    Whole requests are dealt out whole: C clients (or a burst of N) put C // R on every replica and one
    more on C mod R of them, so 9 clients on 8 replicas run 2 on one and 1 on seven, and 1 client keeps
    one replica busy and seven idle (an even split rounded each replica up to a whole client, 8x the
    load). A burst deals out its requests the same way; a finite closed loop's requests follow its
    clients. The point returned stands for the mean replica:
    its rates and requests in flight are the replicas' totals / R (the caller multiplies them back), its
    TTFT, TPOT and wait the means over the requests served; its batch, step and binding limit are the
    busiest replica's."""
    one = batch or serve
    if replicas <= 1:
        return one(st, load, prompt, output, cap, cap_reason, steady)
    shares = Counter(share for share in _shared_loads(load, replicas) if share.value > 0)  # idle: nothing
    points = [
        (count, one(st, share, prompt, output, cap, cap_reason, steady)) for share, count in shares.items()
    ]
    busiest = points[0][1]
    if len(points) == 1 and points[0][0] == replicas:
        return busiest
    pooled = _pooled(points)
    return replace(
        pooled,
        running=busiest.running,
        saturated=busiest.saturated,
        in_flight=pooled.in_flight / replicas,
        requests_per_s=pooled.requests_per_s / replicas,
        output_tokens_per_s=pooled.output_tokens_per_s / replicas,
    )


def _pooled(points: Sequence[tuple[int, ServingPoint]]) -> ServingPoint:
    """``points`` (how many replicas or batches serve each) served together: requests/s, tokens/s, requests
    in flight and running sequences summed, TTFT, TPOT and wait averaged over the requests served, any
    saturated; the step, cap and binding limit the busiest's (the most running)."""
    busiest = max((p for _, p in points), key=lambda p: p.running)
    served = sum(count * p.requests_per_s for count, p in points)
    if served <= 0.0:
        return busiest

    def by_request(value: Callable[[ServingPoint], float]) -> float:
        return sum(count * p.requests_per_s * value(p) for count, p in points) / served

    return replace(
        busiest,
        running=sum(count * p.running for count, p in points),
        in_flight=sum(count * p.in_flight for count, p in points),
        requests_per_s=served,
        output_tokens_per_s=sum(count * p.output_tokens_per_s for count, p in points),
        ttft_s=by_request(lambda p: p.ttft_s),
        tpot_s=by_request(lambda p: p.tpot_s),
        queue_s=by_request(lambda p: p.queue_s),
        saturated=any(p.saturated for _, p in points),
    )


def steady_context(context_in: int, context_out: int, running: int | None = None) -> int:
    """The tokens each of ``running`` requests holds, at most, in a steady flow of staggered requests
    whose cache grows as they generate (``EngineProfile.kv_grows_on_demand``).

    Spread evenly through their output, the running requests have generated 0, O / B, ..., O tokens
    (the one about to finish holds all of it): together B P + O (B + 1) / 2 tokens, each P + O (B + 1) /
    2B: the whole length when it runs alone, prompt + half its output in a large batch (``running``
    None: that limit). An engine that reserves a request's whole length, or requests that end together
    (a burst), hold P + O each."""
    if running is None or running <= 0:
        return context_in + (context_out + 1) // 2
    return context_in + math.ceil(context_out * (running + 1) / (2 * running))


def holds_growing_cache(eng: EngineProfile, load: Load, output: int) -> bool:
    """Whether the requests of ``load`` hold less than their whole length in the cache
    (:func:`steady_context`): an engine whose cache grows as they generate
    (``kv_grows_on_demand``), a steady flow of staggered requests (not waves), of equal output lengths.
    Varied (exponential, ShareGPT-like) lengths do not: a running request is caught, length-biased, about
    one mean output into its own."""
    return eng.kv_grows_on_demand and output > 1 and not in_waves(load) and not load.varied_output


def in_waves(load: Load) -> bool:
    """Whether ``load``'s requests move in waves (a burst, lockstep clients, every request at once), not
    in a steady flow of staggered requests."""
    if load.kind == "rate":
        return not math.isfinite(load.value)
    return load.sends_all or load.lockstep


def serve(
    st: Setup,
    load: Load,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    steady: tuple[int, str] | None = None,
) -> ServingPoint:
    """The operating point of ``st`` under ``load`` with at most ``cap`` sequences (``cap_reason``): a
    pipeline with a batch in flight per GPU (:func:`serve_pipelined`), else one batch
    (:func:`_serve_batch`)."""
    if pipelined(st):
        return serve_pipelined(st, load, prompt, output, cap, cap_reason, steady)
    return _serve_batch(st, load, prompt, output, cap, cap_reason, steady)


def pipelined(st: Setup) -> bool:
    """Whether ``st`` is a layer split whose engine keeps a batch in flight per GPU
    (``EngineProfile.has_pipeline``: the one predicate ``estimate.api.pipelines`` asks too)."""
    return st.parallel == "layer" and st.gpus > 1 and st.engine.has_pipeline()


def serve_pipelined(
    st: Setup,
    load: Load,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    steady: tuple[int, str] | None = None,
) -> ServingPoint:
    """A layer split over G GPUs whose engine keeps one batch in flight per GPU
    (``EngineProfile.has_pipeline``): G interleaved batches, each stepping through the GPUs in
    turn, so every GPU works on one of them at a time.

    Each batch of B / G sequences lives as a layer-split engine of its own: a step reads the whole model
    (every GPU's share in turn, at one GPU's bandwidth) and the KV cache of its own sequences, and the G
    batches share the GPUs without waiting for each other (each GPU spends 1 / G of a step on each). So
    the load is served as by G replicas of the layer-split step, their requests/s summed; the memory cap
    and the KV cache are the whole pipeline's, shared out. With fewer sequences than GPUs some GPUs idle
    (one request: the plain layer split); a prompt is not spread over the batches (its own batch carries
    it). Weights-bound decode gains little (each batch reads every weight again); KV-, compute- and
    prefill-bound loads gain up to G x."""
    stages = st.gpus
    grows = steady is not None and holds_growing_cache(st.engine, load, output)
    room = steady[0] if steady is not None and grows else cap
    n = max(1, min(stages, room))  # no more batches than sequences the memory holds
    caps = _shares(cap, n)
    steadies = _shares(steady[0], n) if steady is not None else [0] * n
    batches: Counter[tuple[Load, int, int]] = Counter(
        (share, most, held)
        for share, most, held in zip(_shared_loads(load, n), caps, steadies, strict=True)
        if share.value > 0  # batches without a client serve nothing
    )
    points = []
    for (share, most, held), count in batches.items():
        held_cap = (max(1, held), steady[1]) if steady is not None else None
        points.append((count, _serve_batch(st, share, prompt, output, max(1, most), cap_reason, held_cap)))
    return replace(_pooled(points), cap=cap)


def _shares(total: int, parts: int) -> list[int]:
    """``total`` dealt out whole over ``parts``, the larger shares first: 5 over 4 is [2, 1, 1, 1]."""
    q, r = divmod(max(0, total), parts)
    return [q + 1] * r + [q] * (parts - r)


def _shared_loads(load: Load, parts: int) -> list[Load]:
    """``load`` shared out over ``parts`` replicas or batches, the larger shares first
    (:func:`serve_replicas`): a request rate evenly; clients (or a burst's requests) whole, C // R each
    and one more on C mod R of them (a part with none: value 0); a finite closed loop's requests follow
    its clients, a burst's are its clients."""
    if load.kind == "rate":
        each = None if load.num_requests is None else math.ceil(load.num_requests / parts)
        return [Load(load.kind, load.value / parts, each, load.lockstep, load.varied_output)] * parts
    whole = (
        max(1, load.num_requests or 0)
        if load.sends_all and load.kind != "burst"
        else max(1, math.ceil(load.value - 1e-9))
    )
    out = []
    for clients in _shares(whole, parts):
        n: int | None = None
        if load.sends_all:
            n = clients if load.num_requests is not None else None
        elif load.num_requests is not None:
            n = max(clients, round(load.num_requests * clients / whole))
        out.append(Load(load.kind, float(clients), n, load.lockstep, load.varied_output))
    return out


def _serve_batch(
    st: Setup,
    load: Load,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    steady: tuple[int, str] | None = None,
) -> ServingPoint:
    """The operating point of one batch of ``st`` under ``load`` with at most ``cap`` sequences;
    ``steady``: the (cap, reason) of a steady flow of staggered requests where it differs (an engine whose
    KV cache grows on demand holds prompt + output / 2 tokens a request on average: ``kv_grows_on_demand``);
    waves of requests that end together (:func:`in_waves`) need their whole length each."""
    o = max(1, output)
    waves = in_waves(load)
    if steady is not None and holds_growing_cache(st.engine, load, output):
        cap, cap_reason = steady
    cap = max(1, cap)
    budget = token_budget_cap(st.engine, prompt, o, steady=not waves)
    if budget is not None and budget < cap:
        cap, cap_reason = budget, "prefill"
    if load.kind == "concurrency" and load.sends_all and load.num_requests:
        # a client allowed more requests in flight than the run has sends them all at once: a burst
        point = _burst(st, load.num_requests, prompt, o, cap, cap_reason, load.varied_output)
    elif load.kind == "concurrency":
        if load.lockstep and st.engine.continuous_batching:
            point = _lockstep(st, load.value, prompt, o, cap, cap_reason)
        else:
            point = _closed_loop(
                st, load.value, prompt, o, cap, cap_reason, load.num_requests, load.varied_output
            )
    elif load.kind == "burst":
        point = _burst(st, int(load.value), prompt, o, cap, cap_reason, load.varied_output)
    else:
        point = _open_loop(st, load.value, load.num_requests, prompt, o, cap, cap_reason, load.varied_output)
    extra = st.engine.request_overhead_us * 1e-6
    if st.engine.multi_step > 1:
        # new requests are admitted only between multi-step runs: half a run of waiting on average
        extra += (st.engine.multi_step - 1) / 2.0 * point.step.total
    if not extra:
        return point
    if load.kind == "rate" and not waves:
        # arrivals do not wait for completions: the time outside the engine lengthens each request's
        # latency, not the rate at which requests are served
        return replace(point, ttft_s=point.ttft_s + extra)
    if load.sends_all or (load.kind == "rate" and waves):
        # every request sent at once: the whole run starts ``extra`` later
        x = point.in_flight / (point.in_flight / point.requests_per_s + extra)
        return replace(point, requests_per_s=x, output_tokens_per_s=x * o, ttft_s=point.ttft_s + extra)
    return _with_client_time(point, extra, o)


def _with_client_time(point: ServingPoint, extra: float, output: int) -> ServingPoint:
    """``point`` for a closed loop of clients who each spend ``extra`` seconds per request outside the
    engine's batch (tokenisation, API server, admission) and send the next request only when one
    completes.

    By Little's law each of the ``in_flight`` clients completes a request every in_flight / X. While the
    engine keeps up (no queue for a slot), the extra time lengthens that cycle: X' = in_flight /
    (in_flight / X + extra): one request in flight completes once per TTFT + (O - 1) TPOT, the overhead
    in the TTFT, never at the engine's pace alone. While the engine is the bottleneck (requests queue
    for a slot), the time outside it only shortens the queue."""
    if point.saturated:
        x = point.requests_per_s
        queue = max(0.0, point.queue_s - extra)
    else:
        x = point.in_flight / (point.in_flight / point.requests_per_s + extra)
        queue = point.queue_s
    return replace(
        point,
        requests_per_s=x,
        output_tokens_per_s=x * output,
        ttft_s=point.ttft_s - point.queue_s + queue + extra,
        queue_s=queue,
    )


def first_token_share(eng: EngineProfile, size: int, prompt: int) -> float:
    """Mean share of a wave's prefill time that has passed when its prompts' first tokens come out.

    ``size`` equal prompts of ``prompt`` tokens arrive together and are prefilled in steps of at most
    ``prefill_chunk_tokens`` tokens; a prompt's first token is sampled at the end of the step that
    processes its last token, so every prompt of a step gets it at the end of that step, not spread
    over it. Chunked engines (vLLM V1, SGLang, TensorRT-LLM) pack the step by tokens: prompt i ends in
    step ceil(i * P / M). Engines without chunking (vLLM V0, TGI 1-2, static batches) take whole
    prompts, floor(M / P) per step (at least one). Time within the wave is taken in proportion to the
    prompt tokens processed. Four 3200-token prompts in one 12,800-token step: share 1 (the whole
    prefill), not the 1/2 of prompts finishing one after another.
    """
    b = max(1, size)
    total = float(b * max(prompt, 1))
    budget = max(1, eng.prefill_chunk_tokens)
    if eng.chunked_prefill and eng.continuous_batching:
        ends = (min(math.ceil(i * prompt / budget) * budget, total) for i in range(1, b + 1))
    else:
        per_step = max(1, budget // max(prompt, 1))
        ends = (min(math.ceil(i / per_step) * per_step, b) * float(prompt) for i in range(1, b + 1))
    return sum(ends) / (b * total)


def _wave(st: Setup, size: int, prompt: int, output: int) -> tuple[float, float, float, StepTime]:
    """One wave of ``size`` equal requests: (wave time, mean TTFT within it, mean TPOT, decode step).

    The prefill forward samples each prompt's first token (:func:`first_token_share` of the wave's
    prefill has passed on average when it comes out); the other ``output - 1`` tokens take a decode
    step each, and the requests end together. TPOT as the benchmark clients report it (vLLM
    ``benchmark_serving`` / SGLang ``bench_serving``: (latency - TTFT) / (output - 1) per request,
    averaged): (wave - mean TTFT) / (output - 1), so a prompt that waited for the others' prefill has
    a shorter TPOT, and the two stay consistent with the wave's length."""
    step = mean_decode_step(st, size, prompt, output)
    if prompt <= 0:
        return output * step.total, step.total, step.total, step
    pre = prefill_seconds(st, prompt, size)
    wave = pre + (output - 1) * step.total
    ttft = pre * first_token_share(st.engine, size, prompt)
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
    at_b = _state(st, b, prompt, output)
    binding = _capped_binding(st, at_b, b, c, prompt, output, cap_reason) if saturated else _binding_of(at_b)
    return ServingPoint(
        b, c, cap, cap_reason, x, x * output, ttft + queue, tpot, queue, step, binding, saturated
    )


def _closed_loop_wait(concurrency: float, running: int, x: float, num_requests: int | None) -> float:
    """Mean wait for a slot of a closed loop of ``concurrency`` clients served ``running`` at a time at
    ``x`` requests/s.

    In the steady state each new request joins the back of a queue of C - B and waits (C - B) / x
    (Little's law). A run of N requests starts with C at once: the C - B that do not fit wait for 1, 2,
    ..., C - B completions, (C - B + 1) / 2x on average; the other N - C arrive into the full queue.
    ``num_requests`` None: the steady state alone."""
    excess = max(0.0, concurrency - running)
    if excess <= 0.0:
        return 0.0
    steady = excess / x
    if not num_requests or num_requests <= concurrency:
        return steady
    head = excess * (excess + 1.0) / 2.0 / x
    return (head + (num_requests - concurrency) * steady) / num_requests


def _closed_loop(
    st: Setup,
    concurrency: float,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    num_requests: int | None = None,
    varied: bool = False,
) -> ServingPoint:
    c = max(1.0, concurrency)
    running = max(1, min(cap, math.ceil(c - 1e-9)))
    s = _state(st, running, prompt, output)
    queue = _closed_loop_wait(c, running, s.x, num_requests)
    saturated = c > running
    k = st.engine.max_waiting_steps
    if k > 1 and running > 1 and not saturated:
        # requests join a running batch only every k decode steps (TGI's max_waiting_tokens): each waits
        # k/2 steps on average, so of c clients only c * O / (O + k/2) have a request decoding at a time
        # (a queue longer than 1.2x the batch is admitted at once: the capped case above)
        waiting = k / 2.0
        decoding = max(1.0, running * output / (output + waiting))
        running = max(1, round(decoding))
        s, step_s = _blended_state(st, decoding, prompt, output)
        queue = waiting * step_s
    binding = _capped_binding(st, s, running, c, prompt, output, cap_reason) if saturated else _binding_of(s)
    ttft = s.ttft_s
    if num_requests and prompt > 0:
        # a benchmark client with --max-concurrency C sends its first C requests at once: those the
        # engine admits are prefilled together (the first wave's first tokens come out at the end of
        # the steps that end their prompts), the rest of the run's requests arrive one by one
        first = min(running, num_requests)
        wave = prefill_seconds(st, prompt, first) * first_token_share(st.engine, first, prompt)
        ttft += first / max(num_requests, first) * (wave - s.ttft_s)
    x = s.x
    if num_requests and varied:
        # the run ends when its last requests' longest outputs end (the batch thinning out)
        extra, _ = _varied_excess(st, min(running, num_requests), prompt, output)
        x = num_requests / (num_requests / s.x + extra)
    return ServingPoint(
        running,
        c,
        cap,
        cap_reason,
        x,
        x * output,
        ttft + queue,
        s.tpot_s,
        queue,
        s.step,
        binding,
        saturated,
    )


def _burst(
    st: Setup, n: int, prompt: int, output: int, cap: int, cap_reason: str, varied: bool = False
) -> ServingPoint:
    """N equal requests at once: waves of ``cap`` (the last one partial). ``varied``: exponential output
    lengths of the same mean: a static batch waits for its longest output in every wave, continuous
    batching refills freed slots and pays the drain of its last requests once (:func:`_varied_excess`)."""
    n = max(1, n)
    b = min(n, cap)
    full, rest = divmod(n, b)
    waves = [b] * full + ([rest] if rest else [])
    start = ttft_sum = tpot_sum = wait_sum = 0.0
    first_step: StepTime | None = None
    for i, size in enumerate(waves):
        wave, ttft, tpot, step = _wave(st, size, prompt, output)
        first_step = first_step or step
        if varied and (not st.engine.continuous_batching or i == len(waves) - 1):
            extra, tpot_v = _varied_excess(st, size, prompt, output)
            wave += extra
            tpot = tpot_v if st.engine.continuous_batching else tpot
        wait_sum += size * start
        ttft_sum += size * (start + ttft)
        tpot_sum += size * tpot
        start += wave
    assert first_step is not None
    x = n / start
    saturated = n > cap
    at_b = _state(st, b, prompt, output)
    binding = _capped_binding(st, at_b, b, n, prompt, output, cap_reason) if saturated else _binding_of(at_b)
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


def _finite_run_wait(n: int, cap: int, x: float, rate: float) -> float:
    """Mean wait for a slot of ``n`` requests arriving at ``rate`` /s, served ``cap`` at a time at ``x``
    requests/s (``x`` < ``rate``).

    The first ``cap`` requests start as they arrive; request j > cap waits for j - cap completions,
    (j - cap) / x after the start, having arrived at j / rate: it waits j (1/x - 1/rate) - cap / x when
    that is positive, i.e. from j0 = cap x rate / (rate - x) on. Summed over j0..n (an arithmetic
    series) and divided by n. Without the head start (cap = 0) it is n / 2 (1/x - 1/rate)."""
    a = 1.0 / x - 1.0 / rate
    if a <= 0.0:
        return 0.0
    j0 = cap / x / a
    if n <= j0:
        return 0.0
    # sum over real j in (j0, n] of (a j - cap / x), as an integral (the terms are linear in j)
    total = a * (n * n - j0 * j0) / 2.0 - cap / x * (n - j0)
    return max(0.0, total / n)


def _prefill_budget_wait(st: Setup, rate: float, prompt: int) -> float:
    """Mean wait of Poisson arrivals at ``rate`` /s for the prefill budget: the M/D/1 wait of the prompt's
    own prefill work (its utilisation held below 0.95). Arrivals above the engine's decode capacity see it
    too: more of the same random arrivals cannot shorten the queue in front of the prefill. There it is a
    floor under the waits for a slot and for the prompts ahead (the largest of the three is taken, not
    their sum: how the queues overlap is not modelled), so TTFT does not drop as the rate crosses
    capacity."""
    service = prefill_compute_seconds(st, prompt) if prompt > 0 else 0.0
    rho = min(0.95, rate * service)
    return rho * service / (2.0 * (1.0 - rho)) if rho > 0 else 0.0


def _open_loop(
    st: Setup,
    rate: float,
    num_requests: int | None,
    prompt: int,
    output: int,
    cap: int,
    cap_reason: str,
    varied: bool = False,
) -> ServingPoint:
    full = _state(st, cap, prompt, output)
    if not math.isfinite(rate):
        return _burst(st, num_requests or cap, prompt, output, cap, cap_reason, varied)
    if rate >= full.x:
        # arrivals above capacity: the engine runs full and the queue grows
        # a finite run: requests wait for a slot (the first ``cap`` start at once), and every prompt
        # waits for those ahead of it to be prefilled (a prefill-first scheduler admits eagerly, so
        # when all fit the queue is in front of the prefill, not of the slots)
        if num_requests:
            prefill_each = full.prefill_share / full.x
            wait = max(
                _finite_run_wait(num_requests, cap, full.x, rate),
                _finite_run_wait(num_requests, 0, 1.0 / prefill_each, rate) if prefill_each > 0 else 0.0,
                _prefill_budget_wait(st, rate, prompt),
            )
        else:
            wait = math.inf
        x = full.x
        # requests in the system, averaged over the run (Little's law): a finite run's N requests each
        # spend their wait plus a full engine's latency in it, over the N / x seconds the run lasts, so at
        # most N are ever in flight; an endless run's queue grows without bound (counted as the cap)
        in_flight = min(float(num_requests), cap + x * wait) if num_requests else float(cap)
        if num_requests and varied:
            # a finite run's requests/s is N over its length, which ends with the drain of the
            # requests in flight when the last one arrived (their longest outputs)
            extra, _ = _varied_excess(st, min(cap, num_requests), prompt, output)
            x = num_requests / (num_requests / full.x + extra)
        return ServingPoint(
            cap,
            in_flight,
            cap,
            cap_reason,
            x,
            x * output,
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
        s = _state(st, b, prompt, output, rate)
        latency = s.ttft_s + (output - 1) * s.tpot_s
        new = min(float(cap), max(1.0, rate * latency))
        if abs(new - running_f) < 0.5:
            running_f = new
            break
        running_f = 0.5 * (running_f + new)
    running = max(1, min(cap, round(running_f)))
    s = _state(st, running, prompt, output, rate)
    wait = _prefill_budget_wait(st, rate, prompt)
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
