"""``recommend --explain N`` says the source's note on the offer (stop 63, a review of ``recommend
serve``): a Vast.ai row of the bundled snapshot is priced at the median of a group of listings, not one
listing a renter can rent at that price, and its host's vCPUs and RAM are not the host's; the web's
row card said so ("Source's note"), the CLI's breakdown a renter pays on did not."""

from __future__ import annotations

import pytest

from tests.cli.terminal_lines import terminal_output


def test_the_explain_of_a_group_median_price_says_it_is_not_one_listing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = terminal_output(
        monkeypatch, 200, "recommend", "serve", "llama-3.1-8b", "-c", "8", "--provider", "vastai", "-x", "1"
    )
    text = "\n".join(lines)
    assert "— " in lines[0] and "Vast.ai" in lines[0], lines[0]
    notes = [i for i, line in enumerate(lines) if line.startswith("source's note: ")]
    assert len(notes) == 1, text
    note = " ".join(line.strip() for line in lines[notes[0] : notes[0] + 3])
    assert "price: the median of a group of Vast.ai offers" in note and "not one listing" in note, note
    # said after the source it is the note of, before the config
    source = next(i for i, line in enumerate(lines) if line.startswith("source: "))
    config = next(i for i, line in enumerate(lines) if line.startswith("config: "))
    assert source < notes[0] < config


def test_an_offer_without_a_note_says_none(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = terminal_output(
        monkeypatch,
        200,
        "recommend",
        "serve",
        "llama-3.1-8b",
        "-c",
        "8",
        "--provider",
        "hyperstack",
        "-x",
        "1",
    )
    assert not [line for line in lines if line.startswith("source's note")], lines
