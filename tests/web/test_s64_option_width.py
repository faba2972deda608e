"""The advisor form's precision options read whole in the select: a chosen option longer than the select
is clipped by the browser ("fp8-ffn · FP8 MLP only (Meta FBGE" at 1440 and 390 px)."""

from gpuscout.estimate.precision import resolve_precision
from gpuscout.web import advise_form


def test_every_precision_option_fits_the_select() -> None:
    for value, label in advise_form.precision_choices():
        assert len(label) <= advise_form.OPTION_CHARS, (value, label)


def test_a_long_label_loses_only_its_parenthesis() -> None:
    labels = dict(advise_form.precision_choices())
    assert labels["fp8-ffn"] == "fp8-ffn · FP8 MLP only"
    assert labels["fp8-block"] == "fp8-block · FP8 block-scaled"
    # a label that fits keeps its parenthesis
    assert labels["w8a8"] == f"w8a8 · {resolve_precision('w8a8').label}"


def test_the_format_keeps_its_whole_label_elsewhere() -> None:
    # the answer's assumptions (CLI, JSON) still say what fp8-ffn is
    assert "FBGEMM" in resolve_precision("fp8-ffn").label
