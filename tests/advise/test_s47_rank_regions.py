"""The advisor's ranker reads the region rules (``gpuscout.knowledge.regions``: some milliseconds of tables
built at import) only when a workload names regions: a plain ``recommend`` no longer pays for them."""

from __future__ import annotations

import subprocess
import sys

from gpuscout.advise.rank import region_filter

_PROBE = """
import sys
import gpuscout.advise.rank as rank
assert "gpuscout.knowledge.regions" not in sys.modules, "imported with gpuscout.advise.rank"
rank.region_filter(("eu",))
assert "gpuscout.knowledge.regions" in sys.modules
print("ok")
"""


def test_importing_the_ranker_does_not_read_the_region_rules() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_region_filter_is_still_the_catalogs() -> None:
    f = region_filter(("Germany",))
    assert f.offer("eu-central-1", ()) and not f.offer("us-east-1", ())
