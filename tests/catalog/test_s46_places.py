"""The region rules (``gpuscout.knowledge.regions``: some milliseconds of tables built at import) are
read by the catalog's query only where a region filter is written or an error suggests regions: an
``import gpuscout.catalog.query``, and a query without a region filter, leave them unread."""

from __future__ import annotations

import subprocess
import sys

from gpuscout.catalog.query import OfferQuery, Params, conditions, offer_regions
from tests.catalog.helpers import make_offer

_PROBE = """
import sys
import gpuscout.catalog.query as q
assert "gpuscout.knowledge.regions" not in sys.modules, "imported with gpuscout.catalog.query"
q.conditions(q.OfferQuery(gpus=("H100-SXM",), providers=("aws",)), q.Params(), dialect="sqlite")
assert "gpuscout.knowledge.regions" not in sys.modules, "imported by a query without a region filter"
q.conditions(q.OfferQuery(regions=("eu",)), q.Params(), dialect="sqlite")
assert "gpuscout.knowledge.regions" in sys.modules
print("ok")
"""


def test_importing_the_query_module_does_not_read_the_region_rules() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_region_filter_and_the_regions_an_error_suggests_still_read_them() -> None:
    params = Params()
    (sql,) = conditions(OfferQuery(regions=("Germany",)), params, dialect="sqlite")
    assert "region_names_0" in sql and "country:de" in params.values.values()
    names = offer_regions([make_offer(region="FIN-03")])
    assert {"FIN-03", "Finland", "europe"} <= names
