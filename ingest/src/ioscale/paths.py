"""Where the checkout is: the schemas, SQL, templates and dashboards the package reads live beside it."""

from __future__ import annotations

import os
from pathlib import Path

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
