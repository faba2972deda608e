"""The file source: the user's own offers from CSV/YAML, with line-numbered errors."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.file_source import ACCEPTED, FileSource, OfferFileError, parse_offer_file
from gpuscout.errors import InvalidInputError

CSV_OK = """provider,instance_type,region,gpu,gpu_count,price_usd_per_hour,spot_price_usd_per_hour,\
interconnect,observed_at,notes
coreweave,reserved-8xh100,us-east,H100 SXM,8,16.0,,nvlink,2026-11-01,1-year contract
onprem,rack-2,basement,RTX 4090,1,0.12,,,,electricity + amortization
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_offers_field_by_field(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", CSV_OK)
    first, second = parse_offer_file(path)
    assert first.provider == "coreweave" and first.instance_type == "reserved-8xh100"
    assert first.accelerator == "H100-SXM" and first.gpu_count == 8 and first.gpu_memory_gb == 80.0
    assert first.price_usd_per_hour == 16.0 and first.price_usd_per_gpu_hour == 2.0
    assert first.spot_price_usd_per_hour is None
    assert first.interconnect is Interconnect.NVLINK
    assert first.observed_at == datetime(2026, 11, 1, tzinfo=UTC)
    assert first.notes == "1-year contract" and first.source == f"file:{path}"
    assert second.accelerator == "RTX4090" and second.gpu_count == 1 and second.gpu_memory_gb == 24.0
    # no observed_at column value: the file's modification time, when the user wrote the price down
    assert second.observed_at == datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


def test_yaml_offers_with_per_gpu_price(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.yaml",
        """
offers:
  - provider: lambda
    gpu: A100 PCIe 80GB
    gpu_count: 4
    price_usd_per_gpu_hour: 1.1
    availability: available
    available_count: 2
""",
    )
    [offer] = parse_offer_file(path)
    assert offer.provider == "lambda" and offer.accelerator == "A100-PCIe-80GB"
    assert offer.price_usd_per_hour == pytest.approx(4.4)
    assert offer.instance_type == "4xA100-PCIe-80GB" and offer.region == "private"
    assert offer.availability is Availability.AVAILABLE and offer.available_count == 2


def test_csv_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.csv",
        (
            "provider,gpu,gpu_count,price_usd_per_hour\n"
            "ok,H100 SXM,1,2.0\n"
            "\n"
            "bad,H100 SXM,1,-3\n"
            "bad,H100 SXM,two,2.0\n"
            "bad,H1OO,1,2.0\n"
            ",A10,1,\n"
        ),
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    fields = [f for f, _ in err.value.problems]
    assert fields == [
        "offers.csv:4: price_usd_per_hour",
        "offers.csv:5: gpu_count",
        "offers.csv:6: gpu",
        "offers.csv:7: provider",
        "offers.csv:7: price_usd_per_hour",
    ]
    assert str(err.value).startswith("offers.csv:4: price_usd_per_hour: must be > 0")
    assert "H100-SXM" in dict(err.value.problems)["offers.csv:6: gpu"]  # closest known names


def test_unknown_column_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", "provider,gpu,price_per_hour\nx,T4,0.5\n")
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    # named by position, never by what was written (errors are shown on the public /sources page)
    assert [f for f, _ in err.value.problems] == ["offers.csv:1: column 3"]
    assert "did you mean price_usd_per_hour?" in str(err.value)
    assert "accepted: provider, gpu, price_usd_per_hour" in str(err.value)
    assert "price_per_hour" not in str(err.value).replace("price_usd_per_hour", "")


def test_yaml_errors_use_the_line_of_the_value(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.yml",
        "- provider: a\n  gpu: T4\n  price_usd_per_hour: 0.5\n"
        "- provider: b\n  gpu: T4\n  price_usd_per_hour: free\n",
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    assert err.value.problems[0][0] == "offers.yml:6: price_usd_per_hour"


def test_bad_yaml_and_bad_types(tmp_path: Path) -> None:
    with pytest.raises(OfferFileError, match=r"offers\.yaml:3: yaml: not valid YAML"):
        parse_offer_file(_write(tmp_path, "offers.yaml", "offers:\n  - [unclosed\n"))
    with pytest.raises(OfferFileError, match="list of offers"):
        parse_offer_file(_write(tmp_path, "o2.yaml", "just a string\n"))
    with pytest.raises(InvalidInputError, match="unknown file type"):
        parse_offer_file(_write(tmp_path, "offers.txt", "x"))
    with pytest.raises(InvalidInputError, match="cannot read"):
        parse_offer_file(tmp_path / "missing.csv")
    with pytest.raises(OfferFileError, match="no offers"):
        parse_offer_file(_write(tmp_path, "empty.csv", "provider,gpu,price_usd_per_hour\n"))


def test_price_columns_must_agree(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "o.csv",
        "provider,gpu,gpu_count,price_usd_per_hour,price_usd_per_gpu_hour\nx,A10,2,2.0,1.5\n",
    )
    with pytest.raises(OfferFileError, match=r"o\.csv:2: price_usd_per_gpu_hour: disagrees"):
        parse_offer_file(path)


def test_file_source_fetch(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", CSV_OK)
    source = FileSource(path)
    assert source.name == f"file:{path.resolve()}" and source.needs_credentials == ()

    async def go() -> int:
        async with httpx.AsyncClient() as client:
            return len(await source.fetch(client))

    assert asyncio.run(go()) == 2


# ---- hostile files: bounded reads, clear errors, never the file's content ------------------------


def _parse_within(path: Path, seconds: float = 20.0) -> BaseException | list[object]:
    """parse_offer_file in a thread, so a test fails (rather than hangs) if a read blocks."""
    box: list[BaseException | list[object]] = []

    def run() -> None:
        try:
            box.append(list(parse_offer_file(path)))
        except BaseException as exc:
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"parse_offer_file({path}) did not return"
    return box[0]


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "offers.csv"
    os.mkfifo(fifo)
    err = _parse_within(fifo)
    assert isinstance(err, InvalidInputError) and "not a regular file" in str(err)


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null", "DIR"])
def test_devices_and_directories_are_refused(
    special: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if special == "DIR":
        path = tmp_path / "dir.csv"
        path.mkdir()
    else:
        path = tmp_path / "dev.csv"
        path.symlink_to(special)
    err = _parse_within(path)
    assert isinstance(err, InvalidInputError) and "not a regular file" in str(err)


def test_a_file_over_the_size_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuscout.catalog.sources import file_source

    monkeypatch.setattr(file_source, "MAX_FILE_BYTES", 1000)
    path = _write(tmp_path, "big.csv", "provider,gpu,price_usd_per_hour\n" + "x,T4,0.5\n" * 200)
    with pytest.raises(InvalidInputError, match="larger than 1,000 bytes"):
        parse_offer_file(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_is_named(encoding: str, tmp_path: Path) -> None:
    path = tmp_path / "offers.csv"
    path.write_bytes("provider,gpu,price_usd_per_hour\nx,T4,0.5\n".encode(encoding))
    with pytest.raises(InvalidInputError, match=r"offers\.csv is UTF-16 encoded; save it as UTF-8"):
        parse_offer_file(path)


@given(st.binary(min_size=1, max_size=400))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_bytes_give_a_clear_error_or_offers(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(data)
    try:
        parse_offer_file(path)
    except InvalidInputError as exc:  # OfferFileError is one: a field or the file is named
        assert str(exc).startswith(("fuzz.yaml:", "file:"))


def test_deep_yaml_is_a_clear_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "deep.yaml", "[" * 5000 + "]" * 5000)
    with pytest.raises(OfferFileError, match="nested deeper than"):
        parse_offer_file(path)
    path = _write(tmp_path, "deep2.yaml", "".join("  " * i + "- \n" for i in range(3000)))
    with pytest.raises(OfferFileError, match=r"nested deeper than|not valid YAML"):
        parse_offer_file(path)


def test_yaml_alias_bombs_are_bounded(tmp_path: Path) -> None:
    names = "abcdefghi"
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{c}: &{c} [" + ", ".join(["*" + p] * 9) + "]" for p, c in itertools.pairwise(names)]
    bomb = "\n".join(lines)
    lists = _write(
        tmp_path,
        "lists.yaml",
        bomb + "\noffers:\n  - {provider: x, gpu: T4, price_usd_per_hour: 0.5, notes: *i}\n",
    )
    with pytest.raises(OfferFileError, match="notes: must be a single value"):
        parse_offer_file(lists)
    # merge keys copy keys: bounded per mapping
    parts = [f"p{i}: &p{i} {{" + ", ".join(f"k{i}_{j}: 1" for j in range(60)) + "}" for i in range(20)]
    merged = "\n".join(parts) + "\nbig: {<<: [" + ", ".join(f"*p{i}" for i in range(20)) + "]}\noffers: []\n"
    with pytest.raises(OfferFileError, match="merge keys expand to more than 1000 keys"):
        parse_offer_file(_write(tmp_path, "merge.yaml", merged))


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("observed_at", "9999-12-31T23:59:59", "lies in the future"),
        ("observed_at", "2999-01-01", "lies in the future"),
        ("observed_at", "0001-01-01", "before 2000"),
        ("gpu_count", str(2**63), "must be at most 10,000"),
        ("gpu_count", "99999999999999999999", "must be at most 10,000"),
        ("available_count", "1e30", "must be at most 1,000,000"),
        ("price_usd_per_hour", "1e400", "must be > 0 (a finite number)"),
        ("vcpus", "nan", "must be >= 0 (a finite number)"),
    ],
)
def test_absurd_values_are_field_errors(tmp_path: Path, column: str, value: str, why: str) -> None:
    path = _write(
        tmp_path,
        "o.csv",
        f"provider,gpu,price_usd_per_hour,{column}\nx,T4,0.5,{value}\n"
        if column != "price_usd_per_hour"
        else f"provider,gpu,{column}\nx,T4,{value}\n",
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    assert err.value.problems[0] == (f"o.csv:2: {column}", why) or why in err.value.problems[0][1]
    assert err.value.problems[0][0] == f"o.csv:2: {column}"


def test_observed_at_today_in_a_zone_ahead_of_utc_is_accepted(tmp_path: Path) -> None:
    tomorrow = (datetime.now(UTC) + timedelta(hours=12)).date().isoformat()
    [offer] = parse_offer_file(
        _write(tmp_path, "o.csv", f"provider,gpu,price_usd_per_hour,observed_at\nx,T4,0.5,{tomorrow}\n")
    )
    assert offer.observed_at is not None


def test_a_mapping_where_a_value_belongs(tmp_path: Path) -> None:
    path = _write(tmp_path, "o.yaml", "- {provider: {name: x}, gpu: T4, price_usd_per_hour: 0.5}\n")
    with pytest.raises(OfferFileError, match=r"o\.yaml:1: provider: must be a single value"):
        parse_offer_file(path)


SECRET = "hunter2-AKIA-EXAMPLE-SECRET"


@pytest.mark.parametrize(
    "text",
    [
        f"db_password={SECRET},api_key=X\n1,2\n",
        f"provider,gpu,price_usd_per_hour\nx,{SECRET},0.5\n",
        f"provider,gpu,price_usd_per_hour\nx,T4,{SECRET}\n",
        f"provider,gpu,price_usd_per_hour,interconnect\nx,T4,0.5,{SECRET}\n",
        f"provider,gpu,price_usd_per_hour,observed_at\nx,T4,0.5,{SECRET}\n",
        f"provider,gpu,price_usd_per_hour\nx,T4,0.5,{SECRET}\n",
        f'provider,gpu,price_usd_per_hour\n"{SECRET}\n',
    ],
)
def test_errors_never_quote_the_file(tmp_path: Path, text: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        parse_offer_file(_write(tmp_path, "secret.csv", text))
    assert "hunter2" not in str(err.value) and "AKIA" not in str(err.value)


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
        min_size=8,
        max_size=30,
    )
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_cell_value_is_ever_echoed(tmp_path: Path, secret: str) -> None:
    assume(len(secret.strip()) >= 8 and not any(secret.strip() in a for a in (*ACCEPTED, "available")))

    def message(column: str, value: str) -> str:
        row = {"provider": "x", "gpu": "T4", "price_usd_per_hour": "0.5", column: value}
        path = tmp_path / "s.yaml"
        path.write_text(yaml.safe_dump([row]), encoding="utf-8")
        try:
            parse_offer_file(path)
        except InvalidInputError as exc:
            return str(exc)
        return ""

    for column in ("gpu", "price_usd_per_hour", "gpu_count", "availability", "observed_at", "zone"):
        said = message(column, secret)
        # the message's own words ("unknown GPU name") are no echo: the same bad cell with another
        # value ("\x01" x 8) gets the same text around it
        fixed = message(column, "\x01" * 8)
        assert secret.strip() not in said or secret.strip() in fixed


# ---- the one-pass reading of plain CSV rows --------------------------------------------------
_CELLS = {
    "provider": st.sampled_from(["aws", " Lambda ", "coreweave", "", "  ", "x\x00y", "p" * 2001]),
    "gpu": st.sampled_from(["H100 SXM", "h100", "RTX 4090", "A100", "no-such-gpu", "", "H100\x00"]),
    "gpu_count": st.sampled_from(["1", "8", " 2 ", "0", "-1", "1.5", "2.0", "1e5", "nan", "x", "", "8_0"]),
    "price_usd_per_hour": st.sampled_from(["16.0", "$16", "1,000", "0", "-2", "inf", "1e400", "", "0.5 "]),
    "price_usd_per_gpu_hour": st.sampled_from(["", "2.0", "2", "3", "1e7"]),
    "spot_price_usd_per_hour": st.sampled_from(["", "4.5", "0", "abc"]),
    "gpu_memory_gb": st.sampled_from(["", "80", "0", "20000"]),
    "available_count": st.sampled_from(["", "3", "2.5", "0"]),
    "vcpus": st.sampled_from(["", "96", "0", "-1", "1e6"]),
    "interconnect": st.sampled_from(["", "nvlink", "PCIe", " nvlink ", "infiniband"]),
    "availability": st.sampled_from(["", "available", "LIMITED", "soon"]),
    "observed_at": st.sampled_from(
        ["", "2026-11-01", "2026-11-01T12:00:00Z", "1999-01-01", "2999-01-01", "x"]
    ),
    "region": st.sampled_from(["", "us-east", " eu "]),
    "instance_type": st.sampled_from(["", "p5.48xlarge", "a\x00b"]),
    "notes": st.sampled_from(["", "1-year contract", "n" * 2001]),
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    columns=st.lists(st.sampled_from(sorted(_CELLS)), min_size=1, unique=True),
    data=st.data(),
)
def test_a_plain_csv_row_is_read_as_the_checking_reader_reads_it(
    columns: list[str], data: st.DataObject
) -> None:
    """The one-pass reader of plain CSV rows gives the offer the field-by-field reader gives, or
    leaves the row to it (which then names the problems); it never accepts a row that one refuses."""
    from gpuscout.catalog.sources import file_source as fs

    columns = ["provider", "gpu", "price_usd_per_hour", *columns]  # most rows then have an offer
    cells = {c: data.draw(_CELLS[c], label=c) for c in columns}
    now = datetime(2026, 12, 1, tzinfo=UTC)
    names = fs._Names()
    fast = fs.plain_reader(list(cells), "file:f.csv", now, now, names)(list(cells.values()), 2)
    row = fs._Row("f.csv", cells, 2, {})
    checked = fs._offer(row, "file:f.csv", now, now, names)
    if fast is not None:
        assert fast == checked and fast.extra == checked.extra and not row.problems
        assert [type(getattr(fast, k)) for k in ("interconnect", "availability")] == [
            Interconnect,
            Availability,
        ]


def test_a_big_csv_file_reads_as_row_by_row(tmp_path: Path) -> None:
    """A file mixing plain rows and rows the checking reader reads (a "$" price, both prices)."""
    rows = [
        "aws,p5,us-east-1,H100 SXM,8,98.32,,",
        "lambda,gpu_1x_a100,us-west,A100 PCIe 80GB,1,$1.29,,",
        "vast,v1,eu,RTX 4090,2,0.8,0.4,0.4",
    ]
    header = (
        "provider,instance_type,region,gpu,gpu_count,price_usd_per_hour,price_usd_per_gpu_hour,"
        "spot_price_usd_per_hour"
    )
    path = _write(tmp_path, "offers.csv", "\n".join([header, *rows * 50]) + "\n")
    offers = parse_offer_file(path)
    assert [o.price_usd_per_hour for o in offers[:3]] == [98.32, 1.29, 0.8]
    assert [o.extra["line"] for o in offers[:4]] == ["2", "3", "4", "5"] and len(offers) == 150


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ,\n\t\"\r\x00\x0b\x0c\x85\u2028é$'1.")), max_size=40))
def test_csv_records_are_what_the_csv_reader_reads(text: str) -> None:
    """The records of a CSV text (cut at line ends and commas when it has no quote, CR or NUL) are
    csv.reader's, with the line each ends on; a text the reader refuses is refused, naming a line."""
    import csv
    import io

    from gpuscout.catalog.sources import file_source as fs

    reader = csv.reader(io.StringIO(text))
    try:
        expected: list[tuple[int, list[str]]] | None = [(reader.line_num, cells) for cells in reader]
    except csv.Error:
        expected = None
    if expected is None:
        with pytest.raises(OfferFileError, match="not valid CSV"):
            list(fs._csv_records("f.csv", text))
    else:
        assert list(fs._csv_records("f.csv", text)) == expected
