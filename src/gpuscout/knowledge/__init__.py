"""Curated, sourced facts: accelerators, models, provider terms. Pure: no I/O beyond package data."""
