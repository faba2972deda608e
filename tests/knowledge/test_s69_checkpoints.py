"""Later releases of a row's architecture, read in their config.json copies (aiconfigurator-core 0.12.0 wheel,
stop 69): the same shape under another name, or with a longer window of their own."""

from __future__ import annotations

import pytest

from gpuscout.knowledge.models import resolve_model, resolve_model_detail


@pytest.mark.parametrize(("name", "row"), [("MiniMax-M2.5", "minimax-m2"), ("zai-org/GLM-5.1", "glm-5")])
def test_a_same_shape_release_resolves_to_its_row_with_a_note(name: str, row: str) -> None:
    found = resolve_model_detail(name)
    assert found.model.name == row and "aiconfigurator-core 0.12.0" in found.note


@pytest.mark.parametrize(
    ("name", "row", "window"),
    [
        ("MiniMaxAI/MiniMax-M2.7", "minimax-m2", 204_800),
        ("GLM-5.2", "glm-5", 1_048_576),
        ("GLM-5.3", "glm-5", 1_048_576),
    ],
)
def test_a_longer_window_release_keeps_its_row_s_shape(name: str, row: str, window: int) -> None:
    spec, base = resolve_model(name), resolve_model(row)
    assert spec.max_position_embeddings == window > base.max_position_embeddings
    assert (spec.num_hidden_layers, spec.num_experts, spec.index_topk) == (
        base.num_hidden_layers,
        base.num_experts,
        base.index_topk,
    )


def test_glm_5_has_its_multi_token_prediction_layer() -> None:
    assert resolve_model("glm-5").mtp_layers == 1  # num_nextn_predict_layers 1 in its config.json


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("moonshotai/Kimi-K3", "Kimi K3"),
        ("MiniMax-M3", "MiniMax-M3"),
        ("XiaomiMiMo/MiMo-V2-Flash", "MiMo-V2-Flash"),
    ],
)
def test_architectures_read_in_those_copies_that_no_row_describes_say_why(name: str, label: str) -> None:
    from gpuscout.errors import UnknownNameError

    with pytest.raises(UnknownNameError) as err:
        resolve_model(name)
    assert str(err.value).startswith(f"model: unknown name {name!r}: {label} (config.json model_type")
    assert "does not represent" in str(err.value)
