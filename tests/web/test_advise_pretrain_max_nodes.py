"""The advisor's pre-training form and ``max_nodes``: the form fills in its default (64), which is the
form's, not the user's, so a run of a given size (GPUs or nodes) submitted as the form stands still
answers; a value the user changed, or one a link gives, is an error at its label, as the workload says
(with a fixed size there is no node count to search)."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.workload import PretrainWorkload
from tests.web.test_advise_batch_kind_fields import _form_values

RUN = {"model": "llama-3.1-8b", "token_budget": "1e10"}


def _field_error(page: str, name: str) -> str:
    block = page.split(f'id="err-{name}"', 1)[1].split("</span>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", block.split(">", 1)[1])).strip()


@pytest.mark.parametrize("size", [{"gpus": "16"}, {"nodes": "2"}])
def test_a_run_of_a_given_size_sent_as_the_form_stands_answers(
    client: TestClient, size: dict[str, str]
) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "pretrain"}).text)
    default = PretrainWorkload.model_fields["max_nodes"].default
    assert blank["max_nodes"] == str(default) and blank["sent"] == "1"  # the form fills it in
    r = client.get("/advise", params={**blank, **RUN, **size})
    assert r.status_code == 200 and 'id="err-max_nodes"' not in r.text


def test_a_changed_max_nodes_beside_a_size_is_an_error_at_its_label(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "pretrain"}).text)
    r = client.get("/advise", params={**blank, **RUN, "gpus": "16", "max_nodes": "8"})
    assert r.status_code == 422 and 'id="ranked"' not in r.text
    assert _field_error(r.text, "max_nodes").startswith(
        "At most nodes: bounds the node count the advisor searches; with “Number of GPUs” given there is "
        "none to search (accepted: “Number of GPUs” or “Number of nodes” (a fixed size) or “At most nodes”"
    )


def test_a_link_giving_max_nodes_at_its_default_beside_a_size_is_an_error(client: TestClient) -> None:
    params = {"kind": "pretrain", **RUN, "nodes": "2", "max_nodes": "64"}  # no form: the link's own
    r = client.get("/advise", params=params)
    assert r.status_code == 422 and 'id="err-max_nodes"' in r.text
