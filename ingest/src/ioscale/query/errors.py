"""The SQL library's two errors: the user's mistake, or a query file's."""

from __future__ import annotations

from ioscale.errors import ExitStatus, IoscaleError


class QueryLibraryError(IoscaleError):
    """Bad use of the library: unknown query, unknown / missing / invalid parameter, unknown format."""

    exit_status = ExitStatus.USAGE


class QueryFileError(IoscaleError):
    """A query file that does not follow the format (a bug in sql/queries, not in the user's input)."""

    exit_status = ExitStatus.CONFIG
