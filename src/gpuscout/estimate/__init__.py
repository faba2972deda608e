"""Workload physics: pure functions from (model, accelerator, settings) to memory and speed."""
