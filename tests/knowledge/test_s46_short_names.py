"""One rule for a provider's shorter names (``knowledge.providers.short_names``), read by both faces:
the web's ``ProviderLabel.short_name`` (the display name without its parenthesised detail) and the
CLI advisor's provider cell, cut to its column ("Google Cloud", then "aws"). Their outputs, pinned here
for every curated provider, are those the two faces gave before the rule moved into the core."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpuscout.cli.advise_output import provider_cell
from gpuscout.cli.table_fit import Short
from gpuscout.knowledge.providers import all_provider_terms, provider_terms, short_names
from gpuscout.web.providers_view import provider_label

# (id, the web's short name, the CLI cell's shorter forms): as both faces gave them before the move
PINNED = (
    ("aws", "Amazon Web Services", ("Amazon Web Services", "aws")),
    ("gcp", "Google Cloud", ("Google Cloud", "gcp")),
    ("azure", "Microsoft Azure", ("azure",)),
    ("oci", "Oracle Cloud Infrastructure", ("oci",)),
    ("lambda", "Lambda", ("lambda",)),
    ("runpod", "RunPod", ("runpod",)),
    ("vastai", "Vast.ai", ("vastai",)),
    ("cudo", "Cudo Compute", ("cudo",)),
    ("vultr", "Vultr", ("vultr",)),
    ("digitalocean", "DigitalOcean", ("DigitalOcean", "digitalocean")),
    ("paperspace", "Paperspace", ("Paperspace", "paperspace")),
    ("hyperstack", "Hyperstack", ("Hyperstack", "hyperstack")),
    ("nebius", "Nebius AI Cloud", ("nebius",)),
    ("verda", "Verda", ("Verda", "verda")),
    ("scaleway", "Scaleway", ("scaleway",)),
    ("ovhcloud", "OVHcloud Public Cloud", ("ovhcloud",)),
    ("tensordock", "TensorDock", ("tensordock",)),
    ("shadeform", "Shadeform", ("shadeform",)),
    ("fluidstack", "Fluidstack", ("fluidstack",)),
    ("coreweave", "CoreWeave", ("coreweave",)),
    ("jarvislabs", "JarvisLabs.ai", ("jarvislabs",)),
    ("lium", "Lium", ("lium",)),
    ("spheron", "Spheron", ("spheron",)),
    ("primeintellect", "Prime Intellect", ("primeintellect",)),
    ("seeweb", "Seeweb", ("seeweb",)),
    ("yotta", "Yotta", ("yotta",)),
    ("mithril", "Mithril", ("Mithril", "mithril")),
    ("hyperbolic", "Hyperbolic", ("hyperbolic",)),
    ("cloudrift", "CloudRift", ("cloudrift",)),
    ("crusoe", "Crusoe Cloud", ("crusoe",)),
    ("hotaisle", "Hot Aisle", ("hotaisle",)),
    ("daytona", "Daytona", ("daytona",)),
    ("akash", "Akash Network", ("akash",)),
)


def test_every_curated_provider_is_pinned() -> None:
    assert {p for p, _, _ in PINNED} == {t.name for t in all_provider_terms()}


@pytest.mark.parametrize(("provider", "web", "cli"), PINNED)
def test_the_rule_gives_what_both_faces_gave(provider: str, web: str, cli: tuple[str, ...]) -> None:
    display = provider_terms(provider).display_name
    assert short_names(display, provider) == cli
    assert (short_names(display) or (display,))[0] == web


def _cli_forms(name: str, provider: str) -> tuple[str, ...]:
    cell = provider_cell(SimpleNamespace(provider_name=name, offer=SimpleNamespace(provider=provider)))
    return tuple(t.plain for t in cell.shorter) if isinstance(cell, Short) else ()


@pytest.mark.parametrize(("provider", "web", "cli"), PINNED)
def test_both_faces_read_the_rule(provider: str, web: str, cli: tuple[str, ...]) -> None:
    assert provider_label(provider).short_name == web
    assert _cli_forms(provider_terms(provider).display_name, provider) == cli


def test_names_the_table_does_not_know() -> None:
    # an unknown provider is shown by its id: nothing shorter; a name of no detail: none either
    assert short_names("newcloud", "newcloud") == ()
    assert provider_label("newcloud").short_name == "newcloud" and _cli_forms("", "newcloud") == ()
    assert short_names("Vast.ai") == () and short_names("(odd) name", "odd") == ("odd",)
    assert short_names("Foo (Bar)", "Foo") == ("Foo",)  # the id the same as the head: said once
