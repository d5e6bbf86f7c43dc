"""Fixtures of the report's integration tests: the runs they report on (report_stack.py)."""

from report_stack import ch, real_fio, simulated  # noqa: F401  (fixtures)
