"""Where the checkout is (the schemas, SQL, templates and dashboards the package reads live beside it),
and how a file holding secrets is written."""

from __future__ import annotations

import os
import tempfile
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


def write_private(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data``, readable by its owner only from the first byte.

    ``mkstemp`` creates a new file (O_EXCL) with mode 0600, so no moment exists in which the
    secrets sit in a file others may read, and a stale or planted temp file is never reused;
    the rename makes the new content appear whole.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
