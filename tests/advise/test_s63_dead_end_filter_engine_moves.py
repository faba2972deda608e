"""Dead ends that said their ways out only in one flat text now give them as moves too (stop 63, a review
of ``recommend serve``): the GPUs, providers or regions asked run nothing ("no offer of RTX3060-12GB can
run it (...); --precision fp8 would fit: the cheapest is ...; elsewhere the cheapest is ..."), and a named
engine the support rules refuse on every GPU ("--engine sglang runs on none of these offers' GPUs ...;
without --engine the cheapest is ..."), and the generic "no offer can run it" with its hints, came with
``moves == []``: the web's "Try this" links and the JSON API had nothing to offer. Each now names what
binds (``binding_why``) and its moves, each with the workload fields it changes; applied, those fields
show the row the move names, at its cost. The flat ``binding`` text is unchanged."""

from __future__ import annotations

from typing import Any

from gpuscout.advise.api import advise
from gpuscout.advise.types import MOVE_GROUPS, Advice, Move
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer
from tests.advise.test_s61_dead_end_moves import _answer, _cheapest


def _in_order(moves: tuple[Move, ...]) -> None:
    """Keeping first, then relaxing, then the last resort."""
    groups = [MOVE_GROUPS.index(m.group) for m in moves]
    assert groups == sorted(groups), moves


def _said_in_order(found: Advice) -> None:
    """Each move said in the flat text, in the order the moves come, after what binds."""
    binding = found.binding or ""
    assert found.binding_why and binding.startswith(found.binding_why), (found.binding_why, binding)
    positions = [binding.index(m.text) for m in found.moves]
    assert positions == sorted(positions), (found.moves, binding)


def _shows(w: Any, move: Move, offers: Any = None) -> None:
    """``move``'s fields, applied to ``w``, show a row that costs what the move says."""
    changed = w.model_copy(update=move.options)
    shown = (_answer(changed) if offers is None else advise(changed, offers, now=NOW)).rows
    assert shown, move
    assert move.total_usd is not None
    assert any(r.total_usd == move.total_usd for r in shown), (move, [r.total_usd for r in shown])


def test_a_gpu_filter_dead_end_gives_the_precision_and_elsewhere_as_moves() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, accelerators=("RTX3060",))
    found = _answer(w)
    assert not found.rows and found.binding is not None
    assert found.binding_why.startswith("no offer of RTX3060-12GB can run it ("), found.binding_why
    assert [m.group for m in found.moves] == ["keeps", "relaxes"], found.moves
    narrower, elsewhere = found.moves
    assert narrower.options == {"precision": "fp8"}
    assert narrower.text.startswith("--precision fp8 would fit: the cheapest is ")
    assert elsewhere.options == {"accelerators": ()}
    assert elsewhere.text.startswith("elsewhere the cheapest is ")
    for move in found.moves:
        _shows(w, move)
    _said_in_order(found)
    _in_order(found.moves)


def test_a_provider_filter_dead_end_clears_only_the_filters_given() -> None:
    w = ServeWorkload(model="llama-3.1-70b", concurrency=8, accelerators=("RTX4090",), providers=("lambda",))
    found = _answer(w)
    assert not found.rows and found.moves, (found.binding, found.moves)
    elsewhere = found.moves[-1]
    assert elsewhere.options == {"accelerators": (), "providers": ()}
    _shows(w, elsewhere)


def test_an_engine_refused_everywhere_gives_its_ways_out_as_moves() -> None:
    offers = [
        offer("runpod", "V100-SXM2-16GB", 1, 0.3, memory=16, instance="1xv100"),
        offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100"),
    ]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, precision="q4_k_m", engine="vllm")
    found = advise(w, offers, now=NOW)
    assert not found.rows and found.binding is not None
    assert found.binding_why.startswith(
        "--engine vllm cannot run --precision q4_k_m on any GPU of these offers ("
    ), found.binding_why
    assert [m.group for m in found.moves] == ["keeps", "relaxes"], found.moves
    int4, free = found.moves
    assert int4.options == {"precision": "int4"}
    assert int4.text.startswith("--engine vllm runs --precision int4: the cheapest is 1x H100-SXM")
    assert free.options == {"engine": None}
    assert free.text.startswith("without --engine the cheapest is 1x V100-SXM2-16GB")
    for move in found.moves:
        _shows(w, move, offers)
    _said_in_order(found)


def test_an_engine_its_platform_refuses_gives_the_default_engine_as_a_move() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=16, engine="sglang", accelerators=("V100",))
    found = _answer(w)
    assert not found.rows
    assert found.binding_why.startswith("--engine sglang runs on none of these offers' GPUs"), (
        found.binding_why
    )
    assert 'raises "SGLang only supports sm75 and above"' in found.binding_why
    (free,) = found.moves
    assert free.options == {"engine": None} and free.group == "relaxes"
    _shows(w, free)
    assert _cheapest(_answer(w.model_copy(update=free.options)).rows).total_usd == free.total_usd
    _said_in_order(found)


def test_the_web_try_link_of_a_cleared_filter_drops_that_field() -> None:
    """The move's empty list clears the field in the link (it read "accelerators=()", a GPU named "()")."""
    import html as html_text
    import re
    from urllib.parse import parse_qs, urlsplit

    from fastapi.testclient import TestClient

    from gpuscout.web import create_app

    with TestClient(create_app()) as client:  # the bundled snapshot
        page = client.get("/advise?kind=serve&model=llama-3.1-8b&concurrency=4&accelerators=RTX3060").text
        links = re.findall(r'<a class="try-move" href="([^"]+)">Try this</a>', page.split('id="moves"', 1)[1])
        assert len(links) == 2, links
        queries = [parse_qs(urlsplit(html_text.unescape(u)).query) for u in links]
        assert queries[0]["precision"] == ["fp8"] and queries[0]["accelerators"] == ["RTX3060"]
        assert "accelerators" not in queries[1] and queries[1]["concurrency"] == ["4"]
        shown = client.get(html_text.unescape(links[1])).text
        assert 'id="no-results"' not in shown and 'id="picks"' in shown


def _rtx4090_only() -> list[Any]:
    """A catalog of one- and two-GPU RTX 4090 offers only (48 GiB at most: a 70B model fits at int4)."""
    return [
        offer("runpod", "RTX4090", 1, 0.4, memory=24, instance="1x4090"),
        offer("runpod", "RTX4090", 2, 0.8, memory=24, instance="2x4090"),
    ]


def test_the_plain_dead_end_gives_the_narrower_precision_as_a_move() -> None:
    """No filter given: the generic "no offer can run it" said "--precision int4 would fit" with no move."""
    w = ServeWorkload(model="llama-3.1-70b", concurrency=4)
    found = advise(w, _rtx4090_only(), now=NOW)
    head = "no offer can run it (of 2 offers: 2 do not fit); "
    assert not found.rows and found.binding is not None
    assert found.binding.startswith(head + "--precision int4 would fit: "), found.binding
    (narrower,) = found.moves
    assert narrower.options == {"precision": "int4"} and narrower.group == "keeps"
    assert narrower.text.startswith("--precision int4 would fit: the cheapest is ")
    assert narrower.text in found.binding
    # what binds keeps the hints that are no move, and does not say the move again
    assert found.binding_why.startswith(head + "the largest instance has 48 GiB"), found.binding_why
    assert narrower.text not in found.binding_why
    _shows(w, narrower, _rtx4090_only())


def test_the_plain_dead_end_page_offers_the_move(tmp_path: Any) -> None:
    """The page says the dead end whole (its head says only that no offer runs it: no short lead) and the
    narrower precision as a "Try this" link that shows rows."""
    import html as html_text
    import re
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
    from gpuscout.catalog.store import Store
    from gpuscout.web import create_app

    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)  # only these offers
    store.write_snapshot("test", [replace(o, observed_at=NOW) for o in _rtx4090_only()])
    store.close()
    with TestClient(create_app(url)) as client:
        page = client.get("/advise?kind=serve&model=llama-3.1-70b&concurrency=4").text
        assert 'id="binding-lead"' not in page  # "no offer can run it" says no more than the heading
        lead = page.split('class="dead-end-lead">', 1)[1].split("</p>", 1)[0]
        assert "No current offer can run this workload under these constraints.</strong>" in lead
        why = html_text.unescape(page.split('id="binding">', 1)[1].split("</p>", 1)[0])
        assert why.startswith("No offer can run it (of 2 offers: 2 do not fit); the largest instance"), why
        links = re.findall(r'<a class="try-move" href="([^"]+)">Try this</a>', page.split('id="moves"', 1)[1])
        assert len(links) == 1, links
        assert "precision=int4" in html_text.unescape(links[0])
        shown = client.get(html_text.unescape(links[0])).text
        assert 'id="no-results"' not in shown and 'id="picks"' in shown
