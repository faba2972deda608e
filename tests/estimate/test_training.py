"""estimate_training: pinned fits verdicts, FLOP counts, hand-checkable speed physics, refusals, bad input."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.errors import ConfigurationRejected, InvalidInputError, UnknownNameError
from gpuscout.estimate.parallel import allreduce_seconds, gpu_link
from gpuscout.estimate.training import TrainingEstimate, estimate_training
from gpuscout.estimate.training_speed import CALIBRATION, FA_BACKWARD
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.layout import model_layout
from tests.estimate.training_specs import LLAMA2_70B, LLAMA31_8B, LLAMA31_70B, MIXTRAL_8X7B

A6000 = resolve_gpu("RTX A6000 48GB")
L40S = resolve_gpu("L40S 48GB")
H100 = resolve_gpu("H100 SXM 80GB")
A100 = resolve_gpu("A100-SXM4-80GB")
RTX4090 = resolve_gpu("RTX 4090 24GB")
V100 = resolve_gpu("V100")


@pytest.mark.parametrize("gpu", [A6000, L40S])
@pytest.mark.parametrize(("model", "rank"), [(LLAMA2_70B, 16), (LLAMA2_70B, 64), (LLAMA31_70B, 16)])
def test_qlora_of_a_70b_model_fits_one_48gb_card(gpu, model, rank) -> None:  # type: ignore[no-untyped-def]
    est = estimate_training(model, gpu, method="qlora", seq_len=2048, micro_batch=1, lora_rank=rank)
    assert est.fits, est.memory
    assert est.binding_constraint == "fits"


@pytest.mark.parametrize("gpu", [A6000, H100])
def test_full_finetune_of_70b_does_not_fit_one_card(gpu) -> None:  # type: ignore[no-untyped-def]
    est = estimate_training(LLAMA31_70B, gpu, method="full")
    assert not est.fits
    assert est.binding_constraint == "weights"  # 141 GB of bf16 weights alone overflow
    assert est.binding_resource == "memory capacity"
    assert est.tokens_per_s > 0  # the speed it would have, with the breakdown that says it does not fit


def test_require_fit_refuses_what_does_not_fit() -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(LLAMA31_70B, H100, method="full", require_fit=True)
    assert err.value.field == "gpu"
    assert estimate_training(LLAMA31_8B, H100, method="lora", require_fit=True).fits


def test_full_finetune_of_70b_on_8x80gb_needs_fsdp_and_offload() -> None:
    # 16 B/param x 70.6B / 8 GPUs = 141 GB per GPU: ZeRO-3 alone cannot hold mixed-precision AdamW...
    sharded = estimate_training(LLAMA31_70B, H100, gpus=8, method="full", sharding="fsdp")
    assert not sharded.fits
    assert sharded.binding_constraint == "optimizer"
    # ...with the optimizer (and parameters) offloaded to CPU RAM it fits, as torchtune runs it
    offloaded = estimate_training(
        LLAMA31_70B, H100, gpus=8, method="full", sharding="zero3", cpu_offload=True
    )
    assert offloaded.fits
    assert offloaded.step_breakdown_s["host"] > 0
    # 8-bit AdamW with an fp32 master (10 B/param) still needs 88 GB of states per GPU: no
    assert not estimate_training(
        LLAMA31_70B, H100, gpus=8, method="full", sharding="fsdp", optimizer="adamw8bit"
    ).fits


def test_tensor_and_pipeline_parallel_shard_the_weights() -> None:
    # 70B full training on 2 nodes x 8: TP 8 x PP 2 holds 1/16 of the model per GPU before ZeRO-1
    dp = estimate_training(LLAMA31_70B, H100, gpus=8, nodes=2, method="full", sharding="zero1")
    mp = estimate_training(LLAMA31_70B, H100, gpus=8, nodes=2, method="full", sharding="zero1", tp=8, pp=2)
    assert dp.memory.weights_gb == pytest.approx(2 * 70.55, rel=0.01)
    assert mp.memory.weights_gb < dp.memory.weights_gb / 12
    assert mp.parallel == "TP 8 x PP 2" and dp.parallel == "DP 16"


def test_lora_of_8b_fits_a_24gb_card_with_checkpointing() -> None:
    est = estimate_training(LLAMA31_8B, RTX4090, method="lora", seq_len=2048, micro_batch=1)
    assert est.fits
    # the same run without checkpointing at a long sequence does not
    long = estimate_training(LLAMA31_8B, RTX4090, method="lora", seq_len=8192, checkpointing=False)
    assert not long.fits
    assert long.binding_constraint == "activations"


def test_flops_count_forward_backward_recompute_and_attention() -> None:
    lay = model_layout(LLAMA31_8B)
    head = LLAMA31_8B.vocab_size * LLAMA31_8B.hidden_size
    weights = lay.linear_params + head
    attn_fwd = 4 * 4096 * (2048 + 1) / 2 * 32  # QK^T and AV over the causal mean context, 32 layers
    plain = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=False)
    ckpt = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=True)
    assert plain.flops_per_token == pytest.approx(6 * weights + (1 + FA_BACKWARD) * attn_fwd)
    assert ckpt.flops_per_token == pytest.approx(8 * weights + (2 + FA_BACKWARD) * attn_fwd)
    # MFU is quoted against 6N + 12 L q_dim seq (PaLM / llm-foundry / torchtitan convention)
    assert plain.model_flops_per_token == pytest.approx(6 * weights + 12 * 32 * 4096 * 2048)
    assert ckpt.model_flops_per_token == plain.model_flops_per_token


def test_lora_skips_weight_gradients() -> None:
    full = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=False)
    lora = estimate_training(LLAMA31_8B, H100, method="lora", checkpointing=False)
    assert 0.64 <= lora.flops_per_token / full.flops_per_token <= 0.70  # ~4ND vs 6ND
    assert lora.tokens_per_s > full.tokens_per_s


def test_time_is_tokens_over_throughput() -> None:
    est = estimate_training(LLAMA31_8B, H100, method="lora", tokens=50e6, epochs=3)
    assert est.time_s == pytest.approx(150e6 / est.tokens_per_s)
    assert estimate_training(LLAMA31_8B, H100, method="lora").time_s is None
    assert est.tokens_per_s == pytest.approx(est.tokens_per_step / est.step_time_s)
    assert est.step_time_s == pytest.approx(sum(est.step_breakdown_s.values()))


def test_h100_trains_faster_than_a100_and_mfu_is_realistic() -> None:
    h = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp", micro_batch=4)
    a = estimate_training(LLAMA31_8B, A100, method="full", gpus=8, sharding="fsdp", micro_batch=4)
    assert h.tokens_per_s > 2 * a.tokens_per_s
    for est in (h, a):
        assert 0.25 <= est.mfu <= 0.65
        assert est.binding_resource == "compute"


def test_tensor_parallel_pays_four_all_reduces_per_layer() -> None:
    # TP 8 in one node, no data parallel: the only traffic is 2 all-reduces forward + 2 backward per
    # layer of micro_batch x seq x hidden bf16 activations
    est = estimate_training(
        LLAMA31_70B,
        H100,
        gpus=8,
        method="full",
        tp=8,
        seq_len=4096,
        micro_batch=1,
        grad_accum=2,
        checkpointing=False,
    )
    message = 4096 * 8192 * 2.0
    per_micro = 4 * 80 * allreduce_seconds(gpu_link(H100, 8), 8, message)
    assert est.step_breakdown_s["communication"] == pytest.approx(2 * per_micro)
    recompute = estimate_training(
        LLAMA31_70B,
        H100,
        gpus=8,
        method="full",
        tp=8,
        seq_len=4096,
        micro_batch=1,
        grad_accum=2,
        checkpointing=True,
    )
    assert recompute.step_breakdown_s["communication"] == pytest.approx(2 * per_micro * 6 / 4)


def test_pipeline_bubble_is_pp_minus_one_micro_batches_over_virtual_stages() -> None:
    def run(pp: int, v: int, m: int) -> TrainingEstimate:
        return estimate_training(
            LLAMA31_70B,
            H100,
            gpus=8,
            method="full",
            tp=2,
            pp=pp,
            virtual_stages=v,
            grad_accum=m,
            seq_len=4096,
            sharding="zero1",
        )

    est = run(2, 1, 8)
    b = est.step_breakdown_s
    # 1F1B: the bubble is (pp - 1) / v micro-batch times, whatever the number of micro-batches...
    assert run(2, 1, 16).step_breakdown_s["pipeline_bubble"] == pytest.approx(b["pipeline_bubble"])
    assert run(2, 2, 8).step_breakdown_s["pipeline_bubble"] == pytest.approx(b["pipeline_bubble"] / 2)
    # 4 stages: 3 micro-batch times of half the layers each = 1.5x the 2-stage bubble
    assert run(4, 1, 8).step_breakdown_s["pipeline_bubble"] / b["pipeline_bubble"] == pytest.approx(
        1.5, rel=0.1
    )
    # ...one micro-batch of work (GEMMs, attention, memory-bound kernels and its exposed TP traffic)
    work = b["gemm"] + b["attention"] + b["memory_bound"] + b["communication"]
    assert work / 8 * 0.9 < b["pipeline_bubble"] < work / 8
    assert run(2, 1, 16).tokens_per_s > est.tokens_per_s  # more micro-batches amortise the bubble


def test_fsdp_across_a_slow_network_is_communication_bound() -> None:
    fast = estimate_training(LLAMA31_8B, H100, gpus=8, method="full", sharding="fsdp")
    slow = estimate_training(
        LLAMA31_8B, H100, gpus=4, nodes=2, method="full", sharding="fsdp", internode_gbps=1.0
    )
    assert slow.binding_resource == "communication"
    assert slow.tokens_per_s < fast.tokens_per_s / 3
    assert "communication" in slow.assumptions


def test_expert_gemms_at_small_batch_are_bound_by_reading_the_experts() -> None:
    # Mixtral, one 256-token micro-batch: each expert GEMM sees 64 rows, so reading the expert weights
    # (forward + two backward passes) bounds its time from below
    est = estimate_training(
        MIXTRAL_8X7B, H100, gpus=8, method="full", sharding="fsdp", seq_len=256, checkpointing=False
    )
    lay = model_layout(MIXTRAL_8X7B)
    experts = sum(g.params for g in lay.linear if g.part == "routed_experts")
    assert est.step_breakdown_s["gemm"] >= 3 * experts * 2.0 / (H100.bandwidth_gbps * 1e9)
    assert "64 token rows" in est.assumptions["speed_experts"]


def test_expert_parallel_adds_all_to_alls_and_shards_the_experts() -> None:
    no_ep = estimate_training(MIXTRAL_8X7B, H100, gpus=8, method="full", sharding="zero1", seq_len=4096)
    ep = estimate_training(MIXTRAL_8X7B, H100, gpus=8, method="full", sharding="zero1", seq_len=4096, ep=8)
    assert ep.memory.weights_gb < no_ep.memory.weights_gb / 4
    assert "speed_ep" in ep.assumptions


def test_small_micro_steps_are_bound_by_kernel_launches() -> None:
    tiny = estimate_training("qwen2.5-0.5b", H100, method="lora", seq_len=64)
    assert "speed_launch" in tiny.assumptions
    # 24 layers x (forward + 2x backward + recomputed forward) x (40 kernels + 5 per adapted matrix)
    kernels = 24 * 4 * (40 + 5 * 7)
    assert tiny.step_time_s == pytest.approx(kernels * CALIBRATION.launch_us * 1e-6, rel=0.05)
    # and says so: the binding resource is the host, with what would help
    assert tiny.binding_resource == "host (kernel launches)"
    assert any(w.startswith("host-bound: launching") and "larger micro-batch" in w for w in tiny.warnings)
    big = estimate_training("qwen2.5-0.5b", H100, method="lora", seq_len=8192, micro_batch=8)
    assert big.binding_resource == "compute" and not any("host-bound" in w for w in big.warnings)


def test_zero3_hooks_cost_host_time_per_module_and_pass_where_fsdp_pays_none() -> None:
    # Qwen2.5-0.5B: 24 layers x (7 linear modules + 2 norms) + the final norm + embedding + lm_head =
    # 219 modules, gathered in the forward, the recomputed forward and the backward: 657 hook passes.
    kw = {"method": "full", "seq_len": 256, "gpus": 2, "checkpointing": True}
    fsdp = estimate_training("qwen2.5-0.5b", A100, sharding="fsdp", **kw)
    zero3 = estimate_training("qwen2.5-0.5b", A100, sharding="zero3", **kw)
    assert "speed_zero3_hooks" in zero3.assumptions and "speed_zero3_hooks" not in fsdp.assumptions
    assert "219 modules 3x" in zero3.assumptions["speed_zero3_hooks"]
    # both are host-bound at 256 tokens per micro-step (their traffic hides behind it): the hooks add
    # their host time and nothing else
    assert "speed_launch" in fsdp.assumptions and "speed_launch" in zero3.assumptions
    hooks = 657 * CALIBRATION.zero3_module_us * 1e-6
    assert zero3.step_time_s - fsdp.step_time_s == pytest.approx(hooks, rel=0.02)
    # at 8k tokens per micro-step the GPU work hides the hooks: ZeRO-3 and FSDP run at the same pace
    long = {**kw, "seq_len": 8192}
    assert estimate_training("qwen2.5-0.5b", A100, sharding="zero3", **long).step_time_s == pytest.approx(
        estimate_training("qwen2.5-0.5b", A100, sharding="fsdp", **long).step_time_s, rel=0.01
    )


def test_fp8_training_is_refused_without_fp8_tensor_cores_and_faster_with() -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(LLAMA31_8B, A100, method="full", gpus=8, sharding="fsdp", precision="fp8")
    assert err.value.field == "gpu" and "FP8" in str(err.value)
    h_fp8 = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp", precision="fp8")
    h_bf16 = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp")
    assert h_fp8.tokens_per_s > h_bf16.tokens_per_s
    # a LoRA base *stored* in FP8 still trains on an A100, dequantised to bf16 (slower than bf16)
    lora_fp8 = estimate_training(LLAMA31_8B, A100, method="lora", precision="fp8")
    assert any("FP8" in w for w in lora_fp8.warnings)
    assert lora_fp8.tokens_per_s < estimate_training(LLAMA31_8B, A100, method="lora").tokens_per_s


def test_bf16_on_a_pre_ampere_gpu_runs_at_the_fp16_rate_and_says_so() -> None:
    est = estimate_training(LLAMA31_8B, V100, method="qlora", seq_len=1024)
    assert any("FP16" in w for w in est.warnings)
    assert est.tokens_per_s > 0


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("parallel", {"gpus": 8, "tp": 3}),
        ("tp", {"gpus": 4, "tp": 8, "nodes": 2}),
        ("parallel", {"gpus": 8, "ep": 2}),
        ("pp", {"gpus": 8, "nodes": 8, "pp": 64}),  # 64 stages for 32 layers: the pp argument
        ("parallel", {"gpus": 8, "cp": 4, "seq_len": 4100}),
    ],
)
def test_impossible_parallel_layouts_are_refused(field: str, kw: dict[str, object]) -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(LLAMA31_8B, H100, **kw)  # type: ignore[arg-type]
    assert err.value.field == field


def test_tp_must_split_the_heads() -> None:
    odd = dataclasses.replace(
        LLAMA31_8B, name="odd-heads", num_attention_heads=30, num_key_value_heads=6, head_dim=128
    )
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(odd, H100, gpus=8, tp=4)
    assert err.value.field == "tp"


def test_hf_loss_and_eager_attention_cost_memory() -> None:
    base = estimate_training(LLAMA31_8B, H100, method="lora", seq_len=4096)
    hf = estimate_training(LLAMA31_8B, H100, method="lora", seq_len=4096, loss="hf")
    eager = estimate_training(
        LLAMA31_8B, H100, method="lora", seq_len=4096, attention="eager", checkpointing=False
    )
    flash = estimate_training(LLAMA31_8B, H100, method="lora", seq_len=4096, checkpointing=False)
    # the unchunked loss keeps 12 B instead of 4 B per token and vocabulary entry
    assert (hf.memory.activations_gb - base.memory.activations_gb) * 1e9 == pytest.approx(4096 * 128256 * 8)
    # eager attention keeps heads x seq bf16 probabilities per token and layer
    assert (eager.memory.activations_gb - flash.memory.activations_gb) * 1e9 == pytest.approx(
        32 * 4096 * 32 * 4096 * 2
    )
    assert eager.tokens_per_s < flash.tokens_per_s


def test_result_carries_assumptions_and_breakdown() -> None:
    est = estimate_training(LLAMA31_8B, H100, method="full")
    assert isinstance(est, TrainingEstimate)
    for key in ("bytes_per_param", "activations", "overhead", "efficiency", "flops", "capacity"):
        assert key in est.assumptions
    assert "CALIBRATION" in est.assumptions["efficiency"]
    assert est.memory.capacity_gb == pytest.approx(80 * 2**30 / 1e9, rel=0.01)
    assert set(est.step_breakdown_s) == {
        "gemm",
        "attention",
        "memory_bound",
        "communication",
        "pipeline_bubble",
        "host",
    }
    assert est.tokens_per_s_per_gpu == est.tokens_per_s


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("gpus", {"gpus": 0}),
        ("nodes", {"nodes": -1}),
        ("grad_accum", {"grad_accum": 0}),
        ("tokens", {"tokens": -5}),
        ("epochs", {"epochs": 0}),
        ("internode_gbps", {"internode_gbps": 0}),
        ("cpu_offload", {"cpu_offload": "yes"}),
        ("require_fit", {"require_fit": 1}),
        ("method", {"method": "rlhf"}),
        ("seq_len", {"seq_len": 0}),
        ("lora_rank", {"lora_rank": 4096}),
        ("checkpointing", {"checkpointing": "sometimes"}),
        ("loss", {"loss": "focal"}),
        ("attention", {"attention": "linear"}),
        ("tp", {"tp": 0}),
        ("virtual_stages", {"virtual_stages": 0}),
    ],
)
def test_bad_input_names_the_field(field: str, kw: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate_training(LLAMA31_8B, H100, **kw)  # type: ignore[arg-type]
    assert err.value.field == field
    # a GPU or node count is a configuration (the advisor skips the offer); the rest are user input
    assert isinstance(err.value, ConfigurationRejected) == (field in ("gpus", "nodes"))


def test_unknown_gpu_name_lists_close_names() -> None:
    with pytest.raises(UnknownNameError) as err:
        estimate_training(LLAMA31_8B, "H10O SXM")
    assert err.value.field == "gpu"
    assert err.value.suggestions


@settings(max_examples=40, deadline=None)
@given(
    method=st.sampled_from(["lora", "qlora", "full"]),
    tokens=st.floats(1e3, 1e12),
    factor=st.floats(1.0, 100.0),
    gpus=st.sampled_from([1, 2, 8]),
)
def test_more_tokens_never_take_less_time(method: str, tokens: float, factor: float, gpus: int) -> None:
    a = estimate_training(LLAMA31_8B, H100, method=method, gpus=gpus, tokens=tokens)
    b = estimate_training(LLAMA31_8B, H100, method=method, gpus=gpus, tokens=tokens * factor)
    assert a.time_s is not None and b.time_s is not None
    assert b.time_s >= a.time_s


@settings(max_examples=30, deadline=None)
@given(
    method=st.sampled_from(["lora", "full"]),
    seq=st.sampled_from([512, 2048, 8192]),
    mb=st.integers(1, 8),
    ckpt=st.sampled_from(["none", "selective", "full"]),
)
def test_more_gpus_never_lower_the_throughput_inside_a_node(
    method: str, seq: int, mb: int, ckpt: str
) -> None:
    one = estimate_training(LLAMA31_8B, H100, method=method, seq_len=seq, micro_batch=mb, checkpointing=ckpt)
    eight = estimate_training(
        LLAMA31_8B, H100, gpus=8, method=method, seq_len=seq, micro_batch=mb, checkpointing=ckpt
    )  # DDP: every GPU does the whole step, plus all-reduces
    assert one.tokens_per_s < eight.tokens_per_s <= 8 * one.tokens_per_s * (1 + 1e-9)


def test_names_resolve_through_knowledge() -> None:
    est = estimate_training("Llama 3.1 8B", "H100", method="lora")
    assert est.model == "llama-3.1-8b"
    assert est.gpu == "H100-SXM"
    with pytest.raises(UnknownNameError) as err:
        estimate_training("llama-9-8b", "H100")
    assert err.value.field == "model"


def test_fsdp1_lora_computes_the_frozen_weights_gradients() -> None:
    # FSDP1's flat parameter requires a gradient, so autograd computes the weight gradients of the frozen
    # base too: forward + input gradient + weight gradient (+ the recomputed forward), as a full fine-tune
    kw = {"gpus": 8, "method": "lora", "seq_len": 4096, "checkpointing": "full"}
    flat = estimate_training(LLAMA31_8B, H100, sharding="fsdp1", **kw)
    per_param = estimate_training(LLAMA31_8B, H100, sharding="fsdp", **kw)
    full = estimate_training(LLAMA31_8B, H100, sharding="fsdp", **{**kw, "method": "full"})
    lay = model_layout(LLAMA31_8B)
    weights = lay.linear_active_params + LLAMA31_8B.vocab_size * LLAMA31_8B.hidden_size
    assert flat.flops_per_token - per_param.flops_per_token == pytest.approx(2 * weights, rel=0.01)
    assert flat.flops_per_token == pytest.approx(full.flops_per_token, rel=0.01)
    assert flat.model_flops_per_token == per_param.model_flops_per_token  # the useful work is the same
    assert flat.tokens_per_s < per_param.tokens_per_s


def test_no_sync_accumulation_reduce_scatters_once_per_step() -> None:
    # two nodes of 8 over a slow network: full fine-tuning's per-micro-batch reduce-scatter is exposed;
    # under no_sync only the last micro-batch of the step reduce-scatters
    kw = {"gpus": 8, "nodes": 2, "internode_gbps": 3.0, "method": "full", "sharding": "fsdp", "grad_accum": 8}
    synced = estimate_training(LLAMA31_8B, H100, **kw)
    unsynced = estimate_training(LLAMA31_8B, H100, no_sync_accumulation=True, **kw)
    assert unsynced.step_time_s < synced.step_time_s
    assert unsynced.memory.gradients_gb > 4 * synced.memory.gradients_gb


def test_geforce_training_across_gpus_says_its_exchange_goes_through_host_memory() -> None:
    # RTX 40 / 50 cards have no peer-to-peer access: NCCL stages the exchange through host memory
    ada = estimate_training(LLAMA31_8B, RTX4090, gpus=4, method="qlora", sharding="fsdp")
    assert any("no GPU peer-to-peer access" in w and "host memory" in w for w in ada.warnings)
    # GeForce Ampere too since stop 61 (parallel.GEFORCE_NO_P2P_FROM_CC); its workstation sibling keeps P2P
    ampere = estimate_training(LLAMA31_8B, resolve_gpu("RTX 3090"), gpus=4, method="qlora", sharding="fsdp")
    assert any("no GPU peer-to-peer access" in w and "host memory" in w for w in ampere.warnings)
    a6000 = estimate_training(LLAMA31_8B, resolve_gpu("RTX A6000"), gpus=4, method="qlora", sharding="fsdp")
    assert not any("peer-to-peer" in w for w in a6000.warnings)
    assert not any(
        "peer-to-peer" in w for w in estimate_training(LLAMA31_8B, RTX4090, method="qlora").warnings
    )


def test_training_says_what_pytorch_needs_on_old_gpus() -> None:
    # the default PyTorch wheel covers compute capability 7.5+: a V100 or P100 trains only on the legacy
    # cu126 wheels, a K80 on none (workload_support.csv, pytorch-training platform rows): refused
    def notes(gpu: str, method: str = "lora") -> list[str]:
        return [w for w in estimate_training("qwen2.5-0.5b", gpu, method=method).warnings if "PyTorch" in w]

    for old in ("V100-SXM2-16GB", "P100-PCIe-16GB"):
        (note,) = notes(old, "qlora")
        assert "legacy cu126 PyTorch wheels" in note and old in note
    assert notes("T4") == [] and notes("H100-SXM") == []
    with pytest.raises(ConfigurationRejected, match="no current PyTorch binaries"):
        notes("K80")

    # QLoRA off NVIDIA: bitsandbytes' ROCm wheels cover the MI300X (sourced), nothing sourced covers a TPU
    def partial(gpu: str) -> bool:
        return any("partial" in w for w in estimate_training("qwen2.5-0.5b", gpu, method="qlora").warnings)

    assert not partial("MI300X") and partial("TPU-v5e")
