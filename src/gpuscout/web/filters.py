"""Query-string filters of the comparison table, shared by the page, the exports and the JSON API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator

from gpuscout.catalog.filter_bounds import MAX_GPU_MEMORY_GB, MAX_GPUS_PER_OFFER, MAX_PRICE_USD_PER_HOUR
from gpuscout.catalog.query import DEFAULT_SORT, region_terms
from gpuscout.errors import InvalidInputError
from gpuscout.web.query_params import COMMA_LIST, folded
from gpuscout.wording import REGION_HELP

# Column keys the table can be sorted on (one per visible column, plus the GPU count).
SortColumn = Literal[
    "provider",
    "instance",
    "gpu",
    "gpu_count",
    "vram",
    "interconnect",
    "region",
    "price",
    "spot_price",
    "price_per_gpu",
    "availability",
    "age",
    "source",
]
SORT_COLUMNS: tuple[str, ...] = get_args(SortColumn)
assert DEFAULT_SORT in SORT_COLUMNS, "the default order is a column of the table"
MAX_PER_PAGE = 200
MAX_PAGE = 10_000
MAX_EXPORT_ROWS = 10_000
#: The longest region text a filter (or a workload's ``regions``, over the API) takes.
MAX_REGION_CHARS = 100


class OfferFilters(BaseModel):
    """Filters, sort and page of the offers view. Every field is optional; empty means no filter."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, allow_inf_nan=False)

    # comma-separated lists: a repeated parameter adds to the list, as the CLI's repeatable --gpu,
    # --provider and --region (query_params.COMMA_LIST)
    gpu: Annotated[str | None, COMMA_LIST] = Field(
        default=None,
        max_length=200,
        description="GPU names, comma-separated or the parameter repeated (H100, A100-80GB)",
    )
    min_vram: float | None = Field(
        default=None,
        ge=0,
        le=MAX_GPU_MEMORY_GB,
        description="minimum memory per GPU, GiB (as sold: 80 for an 80 GB card)",
    )
    gpus: int | None = Field(
        default=None, ge=1, le=MAX_GPUS_PER_OFFER, description="exact number of GPUs in the instance"
    )
    provider: Annotated[str | None, COMMA_LIST] = Field(
        default=None, max_length=200, description="providers, comma-separated or the parameter repeated"
    )
    region: Annotated[str | None, COMMA_LIST] = Field(
        default=None,
        max_length=MAX_REGION_CHARS,
        description="regions, comma-separated or the parameter repeated (an offer in any matches; "
        "Texas, US is one): " + REGION_HELP,
    )
    pricing: Literal["any", "on-demand", "spot"] = Field(default="any", description="which price must exist")
    available: bool = Field(
        default=False, description="drop offers known to be unavailable (unknown availability stays)"
    )
    include_stale: bool = Field(
        default=False, description="also list prices flagged stale (from old feeds); hidden by default"
    )
    interconnect: Literal["any", "nvlink", "pcie"] = Field(default="any", description="GPU-to-GPU fabric")
    max_price: float | None = Field(
        default=None, gt=0, le=MAX_PRICE_USD_PER_HOUR, description="maximum $/h for the instance"
    )
    sort: SortColumn = Field(
        default=cast(SortColumn, DEFAULT_SORT),  # every face's default order (catalog.query)
        description="column to sort on, as the table shows it: price_per_gpu is $ per GPU-hour (the spot "
        "one when pricing=spot), price the on-demand instance $/h and spot_price the spot instance $/h "
        "whatever the pricing (the CLI's --sort price follows --spot instead: sort=spot_price here)",
    )
    order: Literal["asc", "desc"] = Field(default="asc", description="sort direction")
    page: int = Field(default=1, ge=1, le=MAX_PAGE, description="page number, from 1")
    per_page: int = Field(
        default=50, ge=1, le=MAX_PER_PAGE, description=f"rows per page (at most {MAX_PER_PAGE})"
    )
    # the region terms split knowing the catalog's regions (with_known_regions), with the text they
    # were split from (a copy with another ``region`` splits it afresh)
    _regions: tuple[str, tuple[str, ...]] | None = PrivateAttr(default=None)

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        # An HTML form submits empty inputs as "": treat them as "not given".
        if isinstance(value, str) and value.strip() == "" and info.field_name:
            return cls.model_fields[info.field_name].default
        return value

    @field_validator("interconnect", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return folded(value)  # "NVLink" as `gpuscout offers --interconnect NVLink` reads it

    @field_validator("gpu", "provider", "region")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        # PostgreSQL cannot compare text holding NUL: a clear 422 naming the field, not a 500
        if value is not None and "\x00" in value:
            raise ValueError("must not contain a NUL character")
        return value

    def is_filtered(self) -> bool:
        """True when a filter narrows the offers (sort, order and paging do not)."""
        view = {"sort", "order", "page", "per_page"}
        defaults = OfferFilters()
        return any(getattr(self, k) != getattr(defaults, k) for k in type(self).model_fields if k not in view)

    def gpu_names(self) -> list[str]:
        return _split(self.gpu)

    def provider_names(self) -> list[str]:
        return _split(self.provider)

    def region_names(self) -> list[str]:
        """The region substrings, each once (matched case-insensitively: "US" and "us" are one), split
        by the catalog's rule (:func:`~gpuscout.catalog.query.region_terms`): a region whose name holds
        commas ("Texas, US") stays whole once :meth:`with_known_regions` has asked the catalog; before
        that, every comma splits."""
        text = self.region or ""
        if self._regions is not None and self._regions[0] == text:
            return list(self._regions[1])
        return list(region_terms([text], lambda _: False))

    def with_known_regions(self, known: Callable[[str], bool]) -> OfferFilters:
        """These filters with their regions split knowing which texts are regions (``known``:
        :func:`~gpuscout.catalog.query.region_known` of the reader the view is read with)."""
        text = self.region or ""
        if not text or "," not in text or (self._regions is not None and self._regions[0] == text):
            return self
        copy = self.model_copy()
        copy._regions = (text, region_terms([text], known))
        return copy

    def query_params(self, **changes: Any) -> dict[str, str]:
        """The non-default fields as query-string parameters (for links that keep the view)."""
        data = self.model_copy(update=changes).model_dump()
        defaults = OfferFilters().model_dump()
        out: dict[str, str] = {}
        for key, value in data.items():
            if value is None or value == defaults[key]:
                continue
            out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return out


class ApiOfferFilters(OfferFilters):
    """The filters of the JSON API (``/api/v1/offers``): a blank value is an error naming its parameter,
    as every other route of the API answers one (``/api/v1/estimate?gpu=``), never its default -- a
    client leaves the parameter out for that. A list of names with none in it (``gpu=,``) is blank
    too. (The page's form sends its empty inputs as blanks: :class:`OfferFilters` reads them as "any".)"""

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name or ""
        if is_blank(name, value):
            raise InvalidInputError(
                name, "is empty; leave the parameter out for its default", _API_WORDS.get(name)
            )
        return value


def is_blank(name: str, value: object) -> bool:
    """Whether ``value`` of the filter ``name`` is blank: a text of spaces, or a list with no name."""
    if not isinstance(value, str):
        return False
    return not value.strip() or (name in _LISTS and not any(p.strip() for p in value.split(",")))


#: The filters that take comma-separated names.
_LISTS = frozenset({"gpu", "provider", "region"})
#: What a non-blank value of each list filter is (the other filters' errors say their type and range).
_API_WORDS = {
    "gpu": "GPU names, comma-separated",
    "provider": "provider names, comma-separated",
    "region": "region names or parts of them, comma-separated",
}


#: What the form calls each field (error messages name the field the way the page does).
FIELD_LABELS: dict[str, str] = {
    "gpu": "GPU",
    "min_vram": "Min memory per GPU (GiB)",
    "gpus": "GPUs per instance",
    "provider": "Provider",
    "region": "Region",
    "pricing": "Pricing",
    "available": "Hide sold out",
    "include_stale": "Include stale prices",
    "interconnect": "Interconnect",
    "max_price": "Max $/h",
    "sort": "Sort",
    "order": "Order",
    "page": "Page",
    "per_page": "Rows per page",
}
assert set(FIELD_LABELS) == set(OfferFilters.model_fields), "every filter has a label"

#: The view of a bare ``/``: offers a generative-AI renter can use (24 GiB or more per GPU).
DEFAULT_VIEW: dict[str, str] = {"min_vram": "24"}


def _split(text: str | None) -> list[str]:
    if not text:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]
