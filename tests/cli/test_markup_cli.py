"""Provider strings and echoed input are printed as text, never as Rich markup, in every CLI output
path (tables, ``--explain``, ``faq``, ``sources``, ``history``, errors).

Regression for the audit's defect 6: ``[/]`` in an instance type crashed ``recommend`` and
``--explain`` (``MarkupError``) for everyone whose catalog held it; ``[link=...]aws[/link]`` rendered
as a hidden link; every error echoing input (``estimate '[/]'``, ``offers --gpu '[/x]'``) crashed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.output import plain
from tests.cli.hostile import MARKUP, hostile_store

runner = CliRunner()

#: Text a Rich markup parser would act on: tags, closing tags, links, escapes, emoji codes.
markup_text = st.one_of(
    st.sampled_from(MARKUP),
    st.builds(
        lambda a, tag, b: f"{a}[{tag}]{b}",
        st.text(alphabet="ab /\\=", max_size=4),
        st.sampled_from(["/", "/x", "bold", "link=https://evil.example", "red on blue", "/link", "b", "i"]),
        st.text(alphabet="ab[]/\\", max_size=4),
    ),
    st.text(alphabet="[]/\\=:abc ", min_size=1, max_size=12),
)


def _run(*argv: str) -> tuple[int, str]:
    result = runner.invoke(app, list(argv))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _shown(text: str, output: str) -> bool:
    """``text`` appears literally, or as its ``repr`` (names in errors are quoted); Rich may wrap long
    cells, so white space is ignored."""
    squash = "".join(output.split())
    return any("".join(form.split()) in squash for form in (text, repr(text)[1:-1]))


@pytest.fixture(scope="module")
def markup_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return hostile_store(tmp_path_factory.mktemp("markup") / "markup.sqlite3", MARKUP)


@pytest.mark.parametrize(
    "argv",
    [
        ["recommend", "serve", "llama-3.1-8b", "--top", "20"],
        ["recommend", "serve", "llama-3.1-8b", "--top", "20", "--explain", "1"],
        ["recommend", "serve", "llama-3.1-8b", "--top", "20", "--explain", "2"],
        ["recommend", "batch", "llama-3.1-8b", "--output-total", "1e7", "--top", "20"],
        ["offers", "--limit", "0", "--sort", "price"],
        ["sources"],
        ["faq", "llama-3.1-8b"],
    ],
)
def test_hostile_provider_strings_are_printed_literally(markup_db: str, argv: list[str]) -> None:
    code, output = _run(*argv, "--db", markup_db)
    assert code == 0, output
    if argv[0] == "offers" or (argv[0] == "recommend" and "--explain" not in argv):
        assert "evil.example" in output  # the link is shown as text, not hidden behind "aws"
        assert sum(_shown(m, output) for m in MARKUP) >= len(MARKUP) - 1


def test_the_explained_row_shows_its_strings_literally(markup_db: str) -> None:
    for n in range(1, len(MARKUP) + 1):
        code, output = _run(
            "recommend", "serve", "llama-3.1-8b", "--top", "20", "--explain", str(n), "--db", markup_db
        )
        assert code == 0, output
        first = output.splitlines()[0]
        assert any(_shown(m, first) for m in MARKUP), first


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "[/]", "--gpu", "H100"],
        ["estimate", "llama-3.1-8b", "--gpu", "[/x]"],
        ["estimate", "llama-3.1-8b", "--gpu", "H100", "--precision", "[link=https://evil.example]x[/link]"],
        ["offers", "--gpu", "[/x]"],
        ["refresh", "-s", "[/]"],
        ["recommend", "serve", "[bold]nope[/bold]"],
        ["faq", "[/]"],
        ["history", "[red]x"],
    ],
)
def test_errors_that_echo_input_print_it_literally(tmp_path: Path, argv: list[str]) -> None:
    code, output = _run(
        *argv,
        *(
            ["--db", f"sqlite:///{tmp_path / 's.db'}"]
            if argv[0] in ("offers", "refresh", "recommend", "faq", "history")
            else []
        ),
    )
    assert code == 2, output
    assert "error:" in output
    echoed = next(a for a in argv if "[" in a)
    assert _shown(echoed, output), output


def test_a_workload_file_with_markup_is_echoed_literally(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("kind: serve\nmodel: '[/][link=https://evil.example]m[/link]'\n")
    code, output = _run("recommend", "serve", "--workload", str(path))
    assert code == 2 and _shown("[link=https://evil.example]m[/link]", output), output


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=markup_text)
def test_any_markup_in_a_name_is_an_error_that_shows_it(text: str) -> None:
    for argv in (["estimate", text, "--gpu", "H100"], ["vram", text]):
        code, output = _run(*argv)
        assert code == 2, output
        assert _shown(text, output) or len(text.strip()) == 0, output


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=st.lists(markup_text, min_size=1, max_size=3, unique=True))
def test_any_markup_in_provider_strings_is_printed_literally(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    db = hostile_store(tmp_path_factory.mktemp("anymarkup") / "m.sqlite3", texts)
    for argv in (
        ["recommend", "serve", "llama-3.1-8b", "--top", "50"],
        ["recommend", "serve", "llama-3.1-8b", "--top", "50", "--explain", "1"],
        ["offers", "--limit", "0", "--sort", "price"],
    ):
        code, output = _run(*argv, "--db", db)
        assert code == 0, output


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(markup_text, st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=30)))
def test_plain_text_renders_exactly_as_written(text: str) -> None:
    from rich.markup import render

    escaped = plain(text)
    assert render(escaped, emoji=False).plain == text  # the consoles do not replace :emoji: codes
    assert render(f"[bold]{escaped} [/] and [red]more[/]", emoji=False).plain == f"{text}  and more"


def test_terminal_escape_sequences_in_provider_strings_are_shown_not_sent(tmp_path: Path) -> None:
    """A raw ESC from a feed would let it colour, move the cursor or hide a link (OSC 8)."""
    osc8 = "\x1b]8;;https://evil.example\x1b\\aws\x1b]8;;\x1b\\"
    db = hostile_store(tmp_path / "esc.sqlite3", [osc8, "\x1b[2J\x1b[31mred", "bell\x07"])
    for argv in (
        ["recommend", "serve", "llama-3.1-8b", "--top", "20"],
        ["recommend", "serve", "llama-3.1-8b", "--top", "20", "--explain", "1"],
        ["offers", "--limit", "0"],
        ["history", "H100"],
    ):
        code, output = _run(*argv, "--db", db)
        assert code == 0, output
        assert "\x1b" not in output and "\x07" not in output
        assert "\\x1b" in output
