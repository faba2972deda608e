"""Offer sources: one module per provider feed, all behind :class:`~.base.Source`.

==================  ==========================================  ==================================
source              feed                                        credentials (env)
==================  ==========================================  ==================================
vastai              Vast.ai bundles (live marketplace)          none
runpod              RunPod REST v2 GPU catalogue (per DC stock) RUNPOD_API_KEY
lambda              Lambda Cloud instance-types (capacity)      LAMBDA_API_KEY
azure               Azure Retail Prices (spot meters)           none
gcp                 GCP Cloud Billing SKUs (host + GPU)         GCP_API_KEY
vultr               Vultr plans + plans-metal                   VULTR_API_KEY optional
digitalocean        DigitalOcean sizes (GPU droplets)           DIGITALOCEAN_TOKEN
shadeform           Shadeform instance types (aggregator)       SHADEFORM_API_KEY
verda               Verda instance types + availability        VERDA_CLIENT_ID, VERDA_CLIENT_SECRET
tensordock          TensorDock v2 locations (component prices)  TENSORDOCK_API_KEY
scaleway            Scaleway Instance products + stock (EUR)    none
akash               Akash Console GPU prices (bid statistics)   none
lium                Lium public nodes feed (secure / spot)      none
primeintellect      Prime Intellect GPU availability (resale)   PRIME_INTELLECT_API_KEY
jarvislabs          Jarvislabs server_meta                      JL_API_KEY
gpuhunt:<provider>  gpuhunt catalogs (aws, azure, gcp, oci,     online ones: the provider's
                    lambda, nebius, runpod, verda, cloudrift)   (see gpuhunt_source.ONLINE)
                    and online providers, in a worker process
==================  ==========================================  ==================================

Retired (``registry.RETIRED``): ``cudo`` (Cudo Compute's public platform shut down on 2026-03-31);
its stored snapshots stay readable. Not built: OVHcloud's public order catalogue and Hyperstack's
pricebook, for which no recorded answer exists to test an adapter against (their ``.source.md``
notes describe the shape from third-party code only).

The bundled snapshot and the user's offer files (``snapshot``, ``file:PATH``) are the catalog's
own sources. Shared plumbing: :mod:`.http` (retries, Retry-After, pagination), :mod:`.payload`
(named fields, schema-change detection, row drops) and :mod:`gpuscout.catalog.normalize`.
"""

from gpuscout.catalog.sources.base import CredentialsMissingError, DroppedRow, Source, SourceError

__all__ = ["CredentialsMissingError", "DroppedRow", "Source", "SourceError"]
