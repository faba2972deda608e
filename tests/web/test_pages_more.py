"""The pages' answers through the test client: answer cards, freshness, folded columns, empty and
past-the-end views, GPU family pages, resolved model names, field errors in plain words on the
model, FAQ and advisor forms, page-wide caveats once, and the binding constraint."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from gpuscout.web import create_app


def _section(html: str, marker: str, end: str = "</p>") -> str:
    return html.split(marker, 1)[1].split(end, 1)[0]


def test_answer_cards_name_the_cheapest_offer_of_each_class(client: TestClient) -> None:
    html = client.get("/").text
    h100 = _section(html, 'data-gpu="H100"', "</li>")
    assert '<span class="per-gpu">$2.20</span>' in h100  # betagpu's b-h100, the cheapest on-demand
    assert "betagpu" in h100 and '<span class="spot-per-gpu">$1.40</span>' in h100
    assert "4 offers" in h100
    l40s = _section(html, 'data-gpu="L40S"', "</li>")
    assert "$0.99" in l40s and "1 offer<" in l40s  # the stale $1.10 d-l40s is not "now"
    mi300x = _section(html, 'data-gpu="MI300X"', "</li>")
    assert "no on-demand offer" in mi300x and "0 offers" in mi300x  # asked about, so shown
    assert 'data-gpu="B300"' not in html  # optional classes appear only with offers
    assert 'id="answer-cards"' not in client.get("/", params={"gpu": "H100"}).text  # a filtered view


def test_the_default_view_is_for_generative_ai_and_says_so(client: TestClient) -> None:
    html = client.get("/").text
    assert 'name="min_vram"' in html and re.search(r'name="min_vram"[^>]*value="24"', html)
    assert 'id="default-view"' in html and 'href="/?min_vram="' in html
    assert 'id="default-view"' not in client.get("/", params={"min_vram": ""}).text


def test_providers_show_display_names_linked_to_their_price_page() -> None:
    with TestClient(create_app()) as client:  # the bundled snapshot
        html = client.get("/", params={"provider": "vastai", "gpu": "RTX4090"}).text
        cell = re.search(r'<td class="provider"[^>]*>(.*?)</td>', html, re.S)
        assert cell and ">Vast.ai</a>" in cell.group(1) and 'href="https://vast.ai' in cell.group(1)
        assert "vCPU" not in html  # Vast.ai's groups state no host specs (review r2 item 10): no column
        html = client.get("/", params={"provider": "lium", "gpu": "RTX4090"}).text
        assert "vCPU" in html  # Lium's rows state vCPUs and RAM: the column is shown


def test_a_page_past_the_end_says_so_and_links_the_last_page(client: TestClient) -> None:
    html = client.get("/", params={"page": 40}).text
    assert 'id="past-end"' in html and "Page 40 is past the last page" in html
    assert '<a href="/">Go to page 1</a>' in _section(html, 'id="past-end"')


def test_an_empty_view_names_the_filter_to_drop(client: TestClient) -> None:
    html = client.get("/", params={"gpu": "H100", "max_price": "1"}).text
    relax = _section(html, 'id="no-offers"', "</div>")
    assert "Without “Max $/h”" in relax and 'href="/?gpu=H100"' in relax


def test_available_only_drops_known_unavailable_and_says_unknown_stays(client: TestClient) -> None:
    html = client.get("/", params={"available": "true"}).text
    assert "b-a100" not in html  # known unavailable
    assert "Hide sold out" in html and "(known unavailable)" in html


def test_a_family_name_lists_its_variants(client: TestClient) -> None:
    r = client.get("/gpus/H100")
    assert r.status_code == 200 and "“H100” covers 3 variants" in r.text
    for variant in ("H100-SXM", "H100-PCIe", "H100-NVL"):
        assert f'href="/gpus/{variant}"' in r.text
    a100 = client.get("/gpus/A100")
    assert a100.status_code == 200 and "A100-SXM4-80GB" in a100.text and "A100-PCIe-40GB" in a100.text
    sxm = client.get("/gpus/H100-SXM").text
    assert 'id="siblings"' in sxm and 'href="/gpus/H100-PCIe"' in sxm
    assert client.get("/gpus/H999").status_code == 404


def test_gpu_memory_is_stated_as_the_vendor_does_with_the_usable_figure(client: TestClient) -> None:
    html = client.get("/gpus").text
    assert "141 GiB HBM3e" in html and "151" not in _section(html, ">H200-SXM</a>", "</tr>")
    l4 = _section(html, ">L4</a>", "</tr>")
    assert "24 GiB GDDR6" in l4 and "23,034 MiB usable (ECC on)" in l4


def test_a_model_alias_names_what_it_was_read_as_and_what_was_probably_meant(client: TestClient) -> None:
    r = client.get("/models/llama-70b")
    assert r.url.path == "/models/llama-2-70b"
    note = _section(r.text, 'id="resolved"')
    assert "“llama-70b” is read as <strong>Llama 2 70B</strong>" in note and "4,096-token context" in note
    assert "Did you mean" in note and ">Llama 3.3 70B</a>" in note
    assert 'id="resolved"' not in client.get("/models/llama-3.1-70b").text
    hf = client.get("/models/meta-llama/Llama-3.1-70B")  # a Hugging Face id in the path
    assert hf.status_code == 200 and hf.url.path == "/models/llama-3.1-70b"


def test_model_page_memory_is_in_gib_next_to_cards_in_gib(client: TestClient) -> None:
    html = client.get("/models/llama-3.1-70b").text
    assert "GiB" in _section(html, 'id="memory"', "</table>") and " GB<" not in _section(
        html, 'id="memory"', "</table>"
    )
    assert "H200 141 GB (140 GiB usable)" in html


def test_model_form_errors_are_at_the_field(client: TestClient) -> None:
    r = client.get("/models/llama-3.1-70b", params={"precision": "fp9", "context": "-1"})
    assert r.status_code == 422
    assert "Precision must be one of bf16, fp8, int8, int4; you typed “fp9”" in r.text
    said = (
        "Context (tokens) must be a whole number from 1 to 131,072 (llama-3.1-70b's context); you typed “-1”"
    )
    assert said in unescape(r.text)
    assert 'value="-1"' in r.text and 'aria-invalid="true"' in r.text


def test_model_page_sizes_a_checkpoint_in_the_format_it_is_published_in(client: TestClient) -> None:
    # gpt-oss ships its experts in MXFP4: the page sized bf16 / fp8 / int8 / int4 only, and its fits and
    # chart defaulted to bf16 (221 GiB: "2x H100"), where the checkpoint is ~64 GiB on one H100
    html = client.get("/models/gpt-oss-120b").text
    memory = _section(html, 'id="memory"', "</table>")
    assert memory.index("mxfp4-moe") < memory.index("bf16") and "as published" in memory
    assert '<option value="mxfp4-moe" selected>mxfp4-moe</option>' in html
    assert '<small class="hint" id="hint-precision">mxfp4-moe: as published</small>' in html
    assert "Which GPUs hold it (mxfp4-moe" in html
    fits = _section(html, 'id="fits"', "</table>")
    assert fits.index("1 ×") < fits.index("H100-SXM")  # one H100 holds it
    assert '/advise?kind=serve&amp;model=gpt-oss-120b"' in html  # the advisor's native default
    asked = client.get("/models/gpt-oss-120b", params={"precision": "bf16"}).text
    assert "Which GPUs hold it (bf16" in asked and "precision=bf16" in asked
    bad = client.get("/models/gpt-oss-120b", params={"precision": "fp4"})
    assert bad.status_code == 422 and "one of mxfp4-moe, bf16, fp8, int8, int4" in bad.text
    # a bf16 checkpoint's page is as it was
    llama = client.get("/models/llama-3.1-8b").text
    assert '<option value="bf16" selected>bf16</option>' in llama and "mxfp4" not in llama
    assert '<small class="hint" id="hint-precision">bf16: as published</small>' in llama


def test_the_models_list_gives_weights_in_the_published_format(client: TestClient) -> None:
    # the list's first weights column was bf16 for every model: gpt-oss-120b "217.6 GiB", as published 60.7
    from gpuscout.estimate.api import memory_needed
    from gpuscout.web.model_view import gib

    html = client.get("/models").text
    assert "Weights as published" in html and "Weights bf16" not in html
    for name, fmt in (("gpt-oss-120b", "mxfp4-moe"), ("deepseek-v3", "fp8-block"), ("llama-3.1-8b", "bf16")):
        row = _section(html, f'href="/models/{name}"', "</tr>")
        weights = memory_needed(name, "B200", precision=fmt, batch=1, context=1).memory.weights_gb
        assert f"{gib(weights):,.1f}\u00a0GiB" in row  # number and unit kept on one line (stop 62)
        assert (fmt in row) is (fmt != "bf16")  # the format is named where it is not bf16


def test_an_image_model_page_times_it_on_the_cards_people_rent(client: TestClient) -> None:
    # it said only "Memory charts are for language models; diffusion models are sized in the advisor"
    from gpuscout.estimate.diffusion import estimate_images
    from gpuscout.web.model_view import IMAGE_GPUS

    html = client.get("/models/flux.1-dev").text
    table = _section(html, 'id="images"', "</table>")
    assert table.count("<tr>") == len(IMAGE_GPUS) + 1  # a row per card, and the header
    h100 = estimate_images("flux.1-dev", "H100-SXM")
    row = _section(table, ">H100-SXM</a>", "</tr>")
    assert h100.fits and f"{h100.seconds_per_image:,.1f} s" in row and "does not fit" not in row
    # 34 GiB of pipeline on the L4's 22.5 GiB, and 23.7 GiB even offloaded: no time is given for it (a time
    # for a pipeline the card cannot hold was shown beside "does not fit")
    assert not estimate_images("flux.1-dev", "L4", cpu_offload=True).fits
    row = _section(table, ">L4</a>", "</tr>")
    assert "does not fit" in row and '<td class="num">—</td>' in row
    # a 24 or 32 GB card holds it with model CPU offload (the transformer's 23.8 GB with its own
    # activations, the peak): timed that way, and said
    for gpu in ("RTX4090", "RTX5090"):
        offloaded = estimate_images("flux.1-dev", gpu, cpu_offload=True)
        row = _section(table, f">{gpu}</a>", "</tr>")
        assert not estimate_images("flux.1-dev", gpu).fits and offloaded.fits
        assert "CPU offload" in row and f"{offloaded.seconds_per_image:,.1f} s" in row
    assert "1024 x 1024, 28 steps" in html and "a prior, not a measurement" in html
    assert "--cpu-offload" in html and "/advise?kind=batch&amp;model=flux.1-dev&amp;images_total=1000" in html
    speech = client.get("/models/whisper-large-v3").text
    assert 'id="images"' not in speech and "gpuscout transcribe" in speech


def test_a_model_the_estimators_cannot_time_gets_no_table_rather_than_an_error() -> None:
    import dataclasses

    from gpuscout.knowledge.models import resolve_model
    from gpuscout.web.model_view import image_rows, speech_rows

    # an imported image or speech model with no pipeline profile (not SDXL / FLUX, not Whisper)
    sd3 = dataclasses.replace(resolve_model("sdxl"), name="sd-3-test")
    other = dataclasses.replace(resolve_model("whisper-large-v3"), name="speech-test", family="other")
    assert image_rows(sd3) == ((), "") and speech_rows(other) == ((), "")


def test_a_speech_model_page_gives_its_real_time_factor_by_gpu(client: TestClient) -> None:
    from gpuscout.estimate.transcription import estimate_transcription
    from gpuscout.web.model_view import IMAGE_GPUS, SPEECH_BATCH

    html = client.get("/models/whisper-large-v3").text
    table = _section(html, 'id="speech"', "</table>")
    assert table.count("<tr>") == len(IMAGE_GPUS) + 1
    row = _section(table, ">L4</a>", "</tr>")
    one = estimate_transcription("whisper-large-v3", "L4")
    many = estimate_transcription("whisper-large-v3", "L4", batch=SPEECH_BATCH)
    assert f"{one.realtime_factor:,.1f}×" in row and f"{many.realtime_factor:,.1f}×" in row
    assert "uncalibrated priors" in html  # the estimator's own caveat, said on the page


def test_faq_names_the_resolved_model_and_puts_an_unknown_one_at_the_field(client: TestClient) -> None:
    html = client.get("/faq", params={"model": "llama-70b"}).text
    assert "computed for Llama 2 70B" in html and 'id="resolved"' in html
    bad = client.get("/faq", params={"model": "lama-3.1-8b"})
    assert bad.status_code == 422 and 'id="err-model"' in bad.text and "llama-3.1-8b</a>" in bad.text
    assert 'value="lama-3.1-8b"' in bad.text


def test_sources_page_puts_loaded_sources_first_and_says_how_to_load_the_rest(client: TestClient) -> None:
    html = client.get("/sources").text
    loaded = _section(html, 'id="sources"', "</table>")
    assert "test" in loaded and "oldfeed" in loaded
    assert "0 rows" not in html and "never" not in loaded
    if 'id="waiting"' in html:
        assert "gpuscout refresh" in html


def test_advisor_caveats_every_row_shares_are_said_once(client: TestClient) -> None:
    html = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "concurrency": "8"}).text
    rows = html.split('<tr class="main"')[1:]
    assert len(rows) >= 3
    caveats = _section(html, 'id="caveats"', "</div>")
    for caveat in re.findall(r"<li>(.*?)</li>", caveats):
        assert not any(caveat in row.split('<tr class="detail"')[0] for row in rows)
        assert html.count(f"⚠ {caveat}<") == 0  # not repeated in any row's breakdown either


def test_advisor_precision_and_engine_are_selects_from_the_knowledge_tables(client: TestClient) -> None:
    html = client.get("/advise").text
    precision = _section(html, '<select name="precision"', "</select>")
    assert '<option value="fp8"' in precision and '<option value="mxfp4"' in precision
    assert '<option value="" selected>native' in precision  # the checkpoint's format by default
    engine = _section(html, '<select name="engine"', "</select>")
    assert '<option value="" selected>auto' in engine  # llama.cpp for GGUF, else vLLM
    assert '<option value="vllm">vLLM' in engine and 'value="llama.cpp"' in engine
    assert '<details class="common">' in html  # closed: nothing set in it yet
    opened = client.get("/advise", params={"kind": "serve", "model": "x", "budget_usd": "100"}).text
    assert '<details class="common" open>' in opened


def test_advisor_errors_use_the_labels_in_plain_words(client: TestClient) -> None:
    r = client.get(
        "/advise",
        params={
            "kind": "serve",
            "model": "llama-3.1-8b",
            "concurrency": "-3",
            "prompt_tokens": "abc",
            "output_tokens": "500",
        },
    )
    assert r.status_code == 422
    assert "Concurrency must be a whole number from 1 to 1,000,000; you typed “-3”" in r.text
    assert "Prompt tokens must be a whole number" in r.text
    assert "int |" not in r.text and "accepted:" not in r.text
    assert re.search(r'name="output_tokens"[^>]*value="500"', r.text)  # the other inputs are kept
    unknown = client.get("/advise", params={"kind": "serve", "model": "lama-3.1-8b"})
    assert unknown.status_code == 422 and 'id="err-model"' in unknown.text
    resolved = client.get("/advise", params={"kind": "serve", "model": "llama-70b"}).text
    assert "“llama-70b” is read as <strong>Llama 2 70B</strong>" in resolved


def test_when_nothing_fits_the_advisor_names_what_binds_in_the_forms_words(client: TestClient) -> None:
    html = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "budget_usd": "1"}).text
    binding = _section(html, 'id="binding"')
    moves = _section(html, 'id="moves"', "</ul>")  # the ways out, listed under what binds
    assert "budget binds" in binding.lower() and "“Budget ($)”" in moves
    assert "--budget" not in html  # the CLI's flags are named as the form's fields


SERVE = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": "8"}


def test_the_pareto_picks_are_named_above_the_table_as_the_api_gives_them(client: TestClient) -> None:
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8}}
    api = client.post("/api/v1/advise", json=body).json()
    html = client.get("/advise", params=SERVE).text
    picks = _section(html, 'id="picks"', "</ul>")
    for name, rank in api["picks"].items():
        item = _section(picks, f'data-pick="{name}"', "</li>")
        assert f'href="#rank-{rank}">#{rank}: ' in item, name
        row = api["recommendations"][rank - 1]
        assert f"{row['offer']['gpu_count']}× {row['offer']['accelerator']}" in item
    for rank in api["picks"].values():
        main = _section(html, f'<tr class="main" data-rank="{rank}"', "</tr>")
        assert 'class="badge pick"' in main
    rule = api["picks_rule"]
    # how they are chosen, folded under "How the picks are chosen" (session 62)
    fold = _section(html, 'id="picks-rule"><summary>How the picks are chosen</summary><p class="note">')
    assert fold.startswith(rule[:1].upper() + rule[1:40])


def test_dominated_rows_are_marked_and_the_time_axis_has_a_column(client: TestClient) -> None:
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8}}
    rows = client.post("/api/v1/advise", json=body).json()["recommendations"]
    html = client.get("/advise", params=SERVE).text
    assert '<th scope="col" class="num">Request latency</th>' in html and ">TTFT</th>" in html
    dominated = [r for r in rows if not r["pareto"]]
    assert dominated and 'class="divider"' in html
    for r in dominated:
        block = _section(html, f'<tbody id="rank-{r["rank"]}" class="dominated">', "</tbody>")
        # the CLI's words for a row off the front, the rule one link away (webfix: was "dominated by")
        assert f'beaten by <a href="#rank-{r["dominated_by"]}">#{r["dominated_by"]}</a>' in block
        assert 'href="#picks-rule"' in block
    front = [r for r in rows if r["pareto"]]
    assert all(f'<tbody id="rank-{r["rank"]}" class="front">' in html for r in front)
    finetune = client.get(
        "/advise", params={"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": "50000000"}
    ).text
    assert '<th scope="col" class="num">Time to finish</th>' in finetune and ">TTFT</th>" not in finetune
    assert "<dt>Training setup</dt><dd>" in finetune and "activation checkpointing" in finetune
    assert "KV cache" not in finetune  # a training step keeps none
    images = client.get("/advise", params={"kind": "batch", "model": "sdxl", "images_total": "1000"}).text
    assert "img/s" in images and "GiB per GPU (weights" in images
    # the card's memory is not called "usable": an engine may use only a share of it (vLLM 0.9)
    assert "GiB usable per GPU" not in images
    assert "KV cache" not in images  # nor does an image pipeline
    assert "<dt>Training setup</dt>" not in html  # serving rows have none
    assert "<dt>Decode step</dt><dd>" in html and "<dt>Decode step</dt>" not in finetune
    # a run's total keeps its cents under $100: two sub-dollar runs were both "$1"
    workload = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 5e7}
    api = client.post("/api/v1/advise", json={"workload": workload}).json()
    # the cheapest pick (a cheaper row can be dominated: not worth its wait)
    cheapest = next(
        r["cost"]["total"] for r in api["recommendations"] if r["rank"] == api["picks"]["cheapest"]
    )
    assert cheapest < 100.0
    assert f'<strong class="pick-total">${cheapest:.2f}</strong>' in finetune


def test_what_the_ranking_was_held_to_is_said_in_the_forms_words(client: TestClient) -> None:
    html = client.get("/advise", params=SERVE).text
    targets = _section(html, 'id="targets"', "</div>")
    assert "load: 8 simultaneous users" in targets and "TTFT" in targets
    assert "--" not in targets and "“Latency targets: none”" in targets


def test_a_model_of_another_kind_links_to_the_pages_that_answer_it(client: TestClient) -> None:
    # the estimator's message names CLI commands; a web user gets the model page and the right form
    serve = client.get("/advise", params={"kind": "serve", "model": "flux.1-dev"})
    error = _section(serve.text, 'id="err-model"', "</label>")
    assert serve.status_code == 422
    assert "flux.1-dev is an image (diffusion) model, not a language model" in error
    assert 'href="/models/flux.1-dev"' in error
    assert 'href="/advise?kind=batch&amp;model=flux.1-dev&amp;images_total=1000"' in error
    assert "gpuscout images" not in error
    faq = client.get("/faq", params={"model": "whisper-large-v3"})
    error = _section(faq.text, 'id="err-model"', "</label>")
    assert faq.status_code == 422 and "whisper-large-v3 is a speech-to-text model" in error
    assert 'href="/models/whisper-large-v3"' in error and "gpuscout transcribe" not in error
    images = client.get("/advise", params={"kind": "batch", "model": "llama-3.1-8b", "images_total": "100"})
    error = _section(images.text, 'id="err-model"', "</label>")
    assert "llama-3.1-8b is a language model, not an image model" in error
    assert 'href="/advise?kind=serve&amp;model=llama-3.1-8b"' in error


def test_a_form_error_names_the_fields_by_their_labels(client: TestClient) -> None:
    # a submitted batch of a model whose kind does not say which total it needs (the form shows both)
    html = client.get("/advise", params={"kind": "batch", "model": "whisper-large-v3", "sent": "1"}).text
    error = _section(html, 'id="err-output_tokens_total"', "</span>")
    assert "“Output tokens in all” (LLM) or “Images in all”" in error and "images_total" not in error
    # an image model's form has only the image total: that is the one it asks for
    flux = client.get("/advise", params={"kind": "batch", "model": "flux.1-dev", "sent": "1"}).text
    assert "Images in all is required" in _section(flux, 'id="err-images_total"', "</span>")
