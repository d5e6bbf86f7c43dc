"""Where the checkout is: the schemas, SQL, templates and dashboards the package reads live beside it."""

from __future__ import annotations

import os
from operator import attrgetter
from pathlib import Path
from typing import Any

from ioscale.errors import ConfigError


def repo_root() -> Path:
    """The checkout this package was installed from (editable install), found by its marker files."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "stream-jobs").is_dir() and (parent / "ingest").is_dir():
            return parent
    env = os.environ.get("IOSCALE_REPO")
    if env:
        return Path(env)
    raise ConfigError("cannot find the ioscale checkout; set IOSCALE_REPO to its path")


class Subpath:
    """A read-only path attribute: ``<base> / parts``, ``base`` naming another attribute (dotted if nested).

    One line per derived location (``log_dir = Subpath("home", "logs")``) instead of a property each.
    """

    def __init__(self, base: str, *parts: str) -> None:
        self._base = attrgetter(base)
        self._parts = parts
        self.__doc__ = f"{base} / {'/'.join(parts)}"

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return self._base(obj).joinpath(*self._parts)
