"""Offer sources: one module per provider feed, all behind :class:`~.base.Source`."""

from gpuscout.catalog.sources.base import CredentialsMissingError, DroppedRow, Source, SourceError

__all__ = ["CredentialsMissingError", "DroppedRow", "Source", "SourceError"]
