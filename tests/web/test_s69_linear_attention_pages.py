"""The model page and the API say which layers of a Gated DeltaNet model attend (stop 69)."""

from __future__ import annotations


def test_the_api_gives_the_linear_layers(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/api/v1/models/qwen3-next-80b-a3b").json()
    assert body["linear_layers"] == 36 and body["num_hidden_layers"] == 48
    assert client.get("/api/v1/models/qwen3-30b-a3b").json()["linear_layers"] == 0
    # the KV cache a sequence holds includes its fixed-size state: positive at any context
    short = client.get("/api/v1/models/qwen3-next-80b-a3b", params={"context": 16}).json()
    assert all(m["memory"]["kv_cache_gb"] > 0.03 for m in short["memory_by_precision"])


def test_the_page_names_the_linear_attention(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/models/qwen3.5-35b-a3b").text
    assert "<dt>Linear attention</dt>" in page and "30 Gated DeltaNet layers" in page
    assert "on 10 layers" in page and "fixed-size state each sequence keeps" in page
    assert "<dt>Linear attention</dt>" not in client.get("/models/qwen3-30b-a3b").text


def test_the_advisor_serves_it_and_refuses_its_training_once(client) -> None:  # type: ignore[no-untyped-def]
    serve = {"workload": {"kind": "serve", "model": "qwen3.5-35b-a3b", "concurrency": 8}, "top": 3}
    recs = client.post("/api/v1/recommend", json=serve).json()
    assert len(recs) == 3 and all(r["reasons"] for r in recs)
    tune = {"workload": {"kind": "finetune", "model": "qwen3.5-35b-a3b", "dataset_tokens": 10_000_000}}
    refused = client.post("/api/v1/recommend", json=tune)
    assert refused.status_code in (400, 422) and refused.json()["field"] == "model"
    assert "not modelled" in refused.json()["message"] and "Gated DeltaNet" in refused.json()["message"]
    page = client.get(
        "/advise", params={"kind": "finetune", "model": "qwen3.5-35b-a3b", "dataset_tokens": "10M"}
    )
    assert page.status_code in (400, 422) and "Gated DeltaNet" in page.text


def test_the_fits_table_says_the_model_is_not_run_where_its_layers_are_not(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/models/qwen3.5-35b-a3b").text
    not_run = page.split('<span class="badge bad">not run</span>', 1)[1].split("</tr>", 1)[0]
    assert ">TPU-v6e</a>" in not_run and "its linear-attention layers" in not_run
    assert "format not run" in client.get("/models/llama-3.1-8b").text


def test_the_faq_answers_what_is_modelled_and_says_what_is_not(client) -> None:  # type: ignore[no-untyped-def]
    """The FAQ's spot answer costs a fine-tune: for a model whose training is refused it failed whole."""
    page = client.get("/faq", params={"model": "qwen3.5-35b-a3b"})
    assert page.status_code == 200
    assert (
        "How much VRAM" in page.text
        and "not estimated: training qwen3.5-35b-a3b is not modelled" in page.text
    )
