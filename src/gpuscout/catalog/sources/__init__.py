"""Offer sources: one module per provider feed, all behind :class:`~.base.Source`.

==================  ==========================================  ==================================
source              feed                                        credentials (env)
==================  ==========================================  ==================================
vastai              Vast.ai bundles (live marketplace)          none
runpod              RunPod GraphQL gpuTypes (stock status)      RUNPOD_API_KEY optional
lambda              Lambda Cloud instance-types (capacity)      LAMBDA_API_KEY
azure               Azure Retail Prices (spot meters)           none
gcp                 GCP Cloud Billing SKUs (host + GPU)         GCP_API_KEY
vultr               Vultr plans + plans-metal                   VULTR_API_KEY optional
digitalocean        DigitalOcean sizes (GPU droplets)           DIGITALOCEAN_TOKEN
shadeform           Shadeform instance types (aggregator)       SHADEFORM_API_KEY
cudo                Cudo machine-types (component prices)       CUDO_API_KEY optional
verda               Verda / DataCrunch instance types           VERDA_CLIENT_ID, VERDA_CLIENT_SECRET
tensordock          TensorDock v0 marketplace hostnodes         none
gpuhunt:<provider>  gpuhunt catalogs (aws, azure, gcp, oci,     online ones: the provider's
                    lambda, nebius, runpod, verda, cloudrift)   (see gpuhunt_source.ONLINE)
                    and online providers
==================  ==========================================  ==================================

The bundled snapshot and the user's offer files (``snapshot``, ``file:PATH``) are the catalog's
own sources. Shared plumbing: :mod:`.http` (retries, Retry-After, pagination), :mod:`.payload`
(named fields, schema-change detection, row drops) and :mod:`gpuscout.catalog.normalize`.
"""

from gpuscout.catalog.sources.base import CredentialsMissingError, DroppedRow, Source, SourceError

__all__ = ["CredentialsMissingError", "DroppedRow", "Source", "SourceError"]
