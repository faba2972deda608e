"""`recommend batch` for images: the speed column is in one unit (img/s) on every row."""

from __future__ import annotations

from types import SimpleNamespace

from gpuscout.cli.advise_output import _speed


def test_an_image_batchs_speed_column_is_in_one_unit() -> None:
    def row(rate: float) -> SimpleNamespace:
        return SimpleNamespace(estimate=SimpleNamespace(throughput=rate, throughput_unit="img/s"))

    # a slow row read "1.0 s/img" beside a fast one's "7.90 img/s"
    assert [_speed(row(r)) for r in (0.99, 7.9, 0.0716, 17.97, 5860.4)] == [
        "0.99 img/s",
        "7.9 img/s",
        "0.0716 img/s",
        "18 img/s",
        "5,860 img/s",  # never "5.86e+03"
    ]
