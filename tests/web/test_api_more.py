"""JSON API beyond offers: knowledge, estimate, recommend, sources, health, refresh, docs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.web import create_app
from gpuscout.web.services import WebServices


def test_gpus_and_one_gpu_with_offers(client: TestClient) -> None:
    names = {g["name"] for g in client.get("/api/v1/gpus").json()}
    assert {"H100-SXM", "RTX4090", "L40S"} <= names
    h100 = client.get("/api/v1/gpus/H100-SXM").json()
    assert h100["memory_gb"] == 80 and h100["offers_total"] == 4 and h100["cheapest_usd_per_gpu_hour"] == 2.2
    assert h100["source"].startswith("http")


def test_unknown_gpu_in_path_is_404_with_closest_names(client: TestClient) -> None:
    r = client.get("/api/v1/gpus/H1OO-SXM")
    assert r.status_code == 404
    assert r.json()["field"] == "gpu" and "H100-SXM" in r.json()["suggestions"]
    page = client.get("/gpus/H1OO-SXM")
    assert page.status_code == 404 and "H100-SXM" in page.text


def test_gpu_page_redirects_an_alias_to_the_canonical_name(client: TestClient) -> None:
    r = client.get("/gpus/h100 sxm5", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/gpus/H100-SXM"


def test_models_and_model_detail(client: TestClient) -> None:
    models = {m["name"]: m for m in client.get("/api/v1/models").json()}
    assert models["llama-3.1-70b"]["total_params_b"] == pytest.approx(70.6, abs=0.1)
    detail = client.get("/api/v1/models/llama-3.1-70b").json()
    by_precision = {m["precision"]: m["memory"] for m in detail["memory_by_precision"]}
    assert by_precision["bf16"]["weights_gb"] > 2 * by_precision["int4"]["weights_gb"]
    fits = {f["gpu"]: f["gpus_needed"] for f in detail["fits"]}
    assert fits["H100-SXM"] == 2 and fits["RTX4090"] == 8  # 141 GB of bf16 weights
    assert fits["T4"] is None  # 8 x 16 GB cannot hold them
    r = client.get("/api/v1/models/llama-9")
    assert r.status_code == 404 and r.json()["field"] == "model" and r.json()["suggestions"]
    # a checkpoint published in another format is sized in it by default, and listed first
    oss = client.get("/api/v1/models/gpt-oss-120b").json()
    assert oss["precision"] == "mxfp4-moe" and oss["memory_by_precision"][0]["precision"] == "mxfp4-moe"
    assert {f["gpu"]: f["gpus_needed"] for f in oss["fits"]}["H100-SXM"] == 1
    r1 = client.get("/api/v1/models/deepseek-r1").json()
    assert (
        r1["precision"] == "fp8-block" and {f["gpu"]: f["gpus_needed"] for f in r1["fits"]}["H200-SXM"] == 8
    )
    asked = client.get("/api/v1/models/deepseek-r1", params={"precision": "bf16"}).json()
    assert {f["gpu"]: f["gpus_needed"] for f in asked["fits"]}["H200-SXM"] is None  # 1.3 TB: not on 8


def test_a_format_a_gpu_cannot_run_is_said_so_not_counted_as_more_than_eight(client: TestClient) -> None:
    # gpt-oss's MXFP4 experts on a V100 (no vLLM kernels for Volta) or a TPU v5p (not a listed target)
    # read as "needs more than 8"; and an unknown precision answered 200 with no GPU holding the model
    oss = {f["gpu"]: f for f in client.get("/api/v1/models/gpt-oss-120b").json()["fits"]}
    for gpu in ("V100-SXM2-32GB", "TPU-v5p"):
        assert oss[gpu]["gpus_needed"] is None and oss[gpu]["unsupported"].startswith(f"vllm: mxfp4 on {gpu}")
    assert oss["H100-SXM"]["unsupported"] == "" and oss["RTX3080"]["unsupported"] == ""  # 10 GB: too small
    html = client.get("/models/gpt-oss-120b").text
    rows = html.split('id="fits"', 1)[1].split("</table>", 1)[0]
    unsupported = rows.split("format not run", 1)[1]
    assert ">V100-SXM2-32GB</a>" in unsupported and ">RTX3080</a>" not in unsupported
    assert ">RTX3080</a>" in rows.split("more than 8", 1)[1].split("format not run", 1)[0]
    bad = client.get("/api/v1/models/llama-3.1-8b", params={"precision": "fp7"})
    assert bad.status_code == 422 and bad.json()["field"] == "precision"


def test_an_image_model_detail_carries_its_speed_by_gpu(client: TestClient) -> None:
    from gpuscout.estimate.diffusion import estimate_images

    flux = client.get("/api/v1/models/flux.1-dev").json()
    by_gpu = {r["gpu"]: r for r in flux["images"]}
    est = estimate_images("flux.1-dev", "H100-SXM")
    assert by_gpu["H100-SXM"]["seconds_per_image"] == est.seconds_per_image and by_gpu["H100-SXM"]["fits"]
    assert not by_gpu["RTX4090"]["fits"] and flux["image_setting"].startswith("1024 x 1024, 28 steps")
    llama = client.get("/api/v1/models/llama-3.1-8b").json()
    assert llama["images"] == [] and llama["image_setting"] == ""


def test_model_page_has_breakdown_chart_and_fits(client: TestClient) -> None:
    html = client.get("/models/llama-3.1-8b").text
    assert 'id="memory"' in html and 'data-chart="chart-vram"' in html and 'id="fits"' in html
    assert "141 GB" in html  # the card-size lines of the chart
    assert client.get("/models/sdxl").status_code == 200


def test_model_vram_series_grow_with_concurrency_past_the_sizing_card() -> None:
    # the chart sizes every model on one large card; a batch over its capacity used to be capped there,
    # so 1, 8, 32 and 128 sequences of Llama-3.1-405B drew the same line
    from gpuscout.knowledge.models import resolve_model
    from gpuscout.web import model_view

    contexts, series = model_view.vram_series(resolve_model("llama-3.1-405b"), "bf16")
    longest = [line[-1] for line in series.values()]
    assert longest == sorted(longest) and len(set(longest)) == len(longest)
    # at the longest context each added sequence adds its cache: 126 layers x 8 KV heads x 128 x 2 x 2 B
    per_token_gib = 126 * 8 * 128 * 2 * 2 / 2**30
    one, eight = series["1 concurrent"][-1], series["8 concurrent"][-1]
    assert eight - one == pytest.approx(7 * contexts[-1] * per_token_gib, rel=0.02)


def test_estimate(client: TestClient) -> None:
    params = {"model": "llama-3.1-8b", "gpu": "H100", "batch": "max"}
    est = client.get("/api/v1/estimate", params=params).json()
    assert est["gpu"] == "H100-SXM" and est["fits"] and est["batch"] > 1
    bad = client.get("/api/v1/estimate", params={"model": "llama-3.1-8b", "gpu": "H100", "precision": "fp17"})
    assert bad.status_code == 422 and bad.json()["field"] == "precision"


def test_estimate_sizes_a_checkpoint_in_its_own_format_as_the_python_api_does(client: TestClient) -> None:
    # the API defaulted to bf16: DeepSeek-R1 "did not fit" 8x H200 (1.3 TB) nor gpt-oss-120b one H100
    from gpuscout.estimate.api import estimate

    for model, gpu, gpus, native in (
        ("deepseek-r1", "H200", 8, "fp8-block"),
        ("gpt-oss-120b", "H100", 1, "mxfp4-moe"),
    ):
        est = client.get("/api/v1/estimate", params={"model": model, "gpu": gpu, "gpus": gpus}).json()
        assert est["precision"] == native and est["fits"] and est["supported"]
        assert est["memory"]["weights_gb"] == estimate(model, gpu, gpus=gpus).memory.weights_gb
    asked = {"model": "gpt-oss-120b", "gpu": "H100", "precision": "bf16"}
    assert not client.get("/api/v1/estimate", params=asked).json()["fits"]  # asked for, bf16 it is


def test_estimate_takes_the_load_as_the_python_api_does(client: TestClient) -> None:
    from gpuscout.estimate.api import estimate

    base = {"model": "llama-3.1-8b", "gpu": "H100", "context_in": 2000, "context_out": 300}
    for load in ({"concurrency": 32}, {"request_rate": 5.0}, {"request_rate": 5.0, "num_requests": 200}):
        got = client.get("/api/v1/estimate", params={**base, **load}).json()
        want = estimate("llama-3.1-8b", "H100", context_in=2000, context_out=300, **load)  # type: ignore[arg-type]
        for key in ("batch", "ttft_ms", "tpot_ms", "requests_per_s", "binding_limit"):
            assert got[key] == getattr(want, key), key  # JSON floats round-trip exactly
    replicas = {**base, "gpus": 4, "parallel": "replicas", "concurrency": 64}
    assert client.get("/api/v1/estimate", params=replicas).json()["batch"] == 16  # 64 users over 4 copies
    two = client.get("/api/v1/estimate", params={**base, "concurrency": 3, "request_rate": 5})
    assert two.status_code == 422 and two.json()["field"] == "request_rate"


def test_estimate_runs_a_gguf_precision_on_llama_cpp_unless_told_otherwise(client: TestClient) -> None:
    params = {"model": "llama-3.1-8b", "gpu": "RTX4090", "precision": "q4_k_m"}
    est = client.get("/api/v1/estimate", params=params).json()
    assert est["engine"] == "llama.cpp" and est["supported"] and est["decode_tokens_per_s"] > 0
    assert client.get("/api/v1/estimate", params={**params, "precision": "bf16"}).json()["engine"] == "vllm"
    # named, the engine is taken at its word: vLLM does not load GGUF files itself
    named = client.get("/api/v1/estimate", params={**params, "engine": "vllm"}).json()
    assert named["engine"] == "vllm" and not named["supported"]


def test_recommend_ranks_with_reasons_and_never_spot_for_serve(client: TestClient) -> None:
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8}, "top": 5}
    recs = client.post("/api/v1/recommend", json=body).json()
    assert [r["rank"] for r in recs] == [1, 2, 3, 4, 5]
    assert all(r["reasons"] and not r["config"]["spot"] for r in recs)
    assert recs[0]["total_usd"] <= recs[-1]["total_usd"]


def test_recommend_errors_name_the_field(client: TestClient) -> None:
    both = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8, "requests_per_s": 2}}
    assert client.post("/api/v1/recommend", json=both).json()["field"] == "concurrency"
    unknown = client.post("/api/v1/recommend", json={"workload": {"kind": "serve", "model": "lama-3.1-8b"}})
    assert unknown.status_code == 422 and "llama-3.1-8b" in unknown.json()["suggestions"]


def test_advisor_page_errors_keep_the_form(client: TestClient) -> None:
    r = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "concurrency": "0"})
    assert r.status_code == 422 and "concurrency" in r.text and 'value="llama-3.1-8b"' in r.text


def test_sources_and_health(client: TestClient) -> None:
    sources = {s["source"]: s for s in client.get("/api/v1/sources").json()}
    assert sources["test"]["row_count"] == 8 and 0.9 < sources["test"]["age_s"] / 3600 < 5 * 24 + 1
    assert sources["oldfeed"]["age"] == "unknown"
    health = client.get("/healthz").json()
    assert health["store"] == "reachable" and health["offers"] == 9
    assert health["newest_data_age_hours"] is not None
    assert "oldfeed" in client.get("/sources").text


def test_health_reports_an_unreachable_store(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    services = WebServices(f"sqlite:///{blocker}/store.db", cache_seconds=0)
    with TestClient(create_app(services=services)) as client:
        r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "error"


def test_refresh_needs_the_admin_token(
    client: TestClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.post("/api/v1/refresh").status_code == 403  # GPUSCOUT_ADMIN_TOKEN unset: disabled
    # the token is a setting, read when the app starts
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", "s3cret")
    client = TestClient(create_app(services=WebServices(db_url, cache_seconds=0)))
    calls: list[object] = []
    services: WebServices = client.app.state.services  # type: ignore[attr-defined]
    monkeypatch.setattr(services, "refresh", lambda names: calls.append(names) or [])
    assert client.post("/api/v1/refresh").status_code == 401
    assert client.post("/api/v1/refresh", headers={"Authorization": "Bearer nope"}).status_code == 401
    ok = client.post("/api/v1/refresh?source=vastai", headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 202 and ok.json() == {"status": "started", "sources": ["vastai"]}
    assert calls == [["vastai"]]


def test_openapi_and_offline_docs(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert {"/api/v1/offers", "/api/v1/recommend", "/api/v1/estimate", "/healthz"} <= set(spec["paths"])
    docs = client.get("/docs")
    bundle = re.search(r'src="(/vendor/swagger/swagger-ui-bundle\.[0-9a-f]{10}\.js)"', docs.text)
    assert docs.status_code == 200 and bundle and 'name="viewport"' in docs.text
    assert "cdn" not in docs.text.lower()
    assert client.get(bundle.group(1)).status_code == 200
    assert client.get("/vendor/plotly.min.js").headers["content-type"].startswith("text/javascript")


def test_faq_page_answers_four_questions(client: TestClient) -> None:
    html = client.get("/faq", params={"model": "llama-3.1-8b"}).text
    for key in ("vram", "spot", "card_class", "slow_generation"):
        assert f'id="{key}"' in html


def test_estimate_takes_the_engines_launch_flags_and_names_a_bad_one(client: TestClient) -> None:
    params = {
        "model": "llama-3.1-8b",
        "gpu": "H100",
        "batch": "max",
        "engine": "vllm --max-num-seqs 64 --swap-space 4",
    }
    est = client.get("/api/v1/estimate", params=params).json()
    assert est["batch"] == 64 and est["assumptions"]["launch_flags"] == "as stated: max_num_seqs 64"
    assert any("--swap-space 4" in w for w in est["warnings"])
    bad = client.get("/api/v1/estimate", params={**params, "engine": "vllm --gpu-memory-utilization 2"})
    assert bad.status_code == 422 and bad.json()["field"] == "engine"
    assert "--gpu-memory-utilization" in bad.json()["message"]


def test_the_advise_api_names_its_own_fields_not_cli_flags(client: TestClient) -> None:
    # "--ttft-ms / --tpot-ms change them", "--budget 937 would show it" told an API caller to use flags
    import re

    body = {"workload": {"kind": "serve", "model": "llama-3.1-70b", "budget_usd": 1}, "top": 2}
    answer = client.post("/api/v1/advise", json=body).json()
    texts = [*answer["targets"], *answer["notes"], answer["binding"] or ""]
    assert not [t for t in texts if re.search(r"(?<![`\w])--[a-z]", t)], texts
    said = " ".join(texts)
    assert '"ttft_ms_max"' in said and '"latency_targets": "none"' in said and '"budget_usd": ' in said
    assert '"concurrency" or "requests_per_s"' in said


def test_templates_are_not_re_read_under_a_running_process() -> None:
    # an edited template rendered against the old Python gave a 500 on a page its view never prepared
    from gpuscout.web.templating import _build_env

    assert _build_env().auto_reload is False


def test_a_non_finite_number_is_called_that(client: TestClient) -> None:
    # "nan" was refused as "Input should be less than or equal to 1000000", which does not say what is wrong
    for url in (
        "/api/v1/estimate?model=llama-3.1-8b&gpu=H100&request_rate=nan",
        "/api/v1/offers?max_price=nan",
        "/api/v1/offers?min_vram=inf",
    ):
        r = client.get(url)
        assert r.status_code == 422 and "finite number" in r.json()["message"], (url, r.text)
