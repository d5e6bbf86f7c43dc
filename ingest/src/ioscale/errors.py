"""Error hierarchy: each error carries an exit status and a hint that tells the user what to do."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    CONFIG = 3
    STACK = 4
    BAD_INPUT = 5
    RESULTS_DIFFER = 6  # `ioscale analyze`: the result tables do not account for the raw samples
    NOT_DELIVERED = 7  # records sent to Kafka were not all delivered (unreachable past the timeout, refused)
    REGRESSION = 8  # `ioscale compare`: the candidate is worse than the baseline beyond the thresholds


class IoscaleError(Exception):
    """Base error: ``str(e)`` says what went wrong, ``hint`` what to do about it."""

    exit_status = ExitStatus.ERROR

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class ConfigError(IoscaleError):
    exit_status = ExitStatus.CONFIG


class StackError(IoscaleError):
    """A local-stack component failed to install, start or answer; names the component and its log."""

    exit_status = ExitStatus.STACK

    def __init__(self, component: str, message: str, log_file: str | None = None, hint: str | None = None):
        where = f" (log: {log_file})" if log_file else ""
        super().__init__(f"{component}: {message}{where}", hint)
        self.component = component
        self.log_file = log_file
