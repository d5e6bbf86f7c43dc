"""Fixtures of the report's integration tests (read-only on the running stack; they never start it)."""

from report_stack import ch, real_fio, simulated  # noqa: F401  (fixtures)
