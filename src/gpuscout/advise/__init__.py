"""The advisor: workload x offers -> fit, speed, cost, reasons. Pure functions."""
