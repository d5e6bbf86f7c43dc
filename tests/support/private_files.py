"""Watch a directory for a moment in which a file with content there is readable by others.

A secret written with default permissions and chmod-ed afterwards is exposed between the write and
the chmod; no test can stop the writer there, but CPython raises an audit event at every open, chmod
and rename, so a hook that looks at the directory at each event sees the file as the next call finds it.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_watches: list[tuple[Path, list[tuple[str, str, int, int]]]] = []
_inside = threading.local()


def _look(event: str, _args: tuple) -> None:
    if not _watches or getattr(_inside, "busy", False):
        return
    _inside.busy = True  # the hook's own scandir and lstat raise audit events too
    try:
        for directory, exposed in _watches:
            try:
                entries = list(os.scandir(directory))
            except FileNotFoundError:
                continue
            for entry in entries:
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_size > 0 and st.st_mode & 0o077:
                    exposed.append((event, entry.name, stat.S_IMODE(st.st_mode), st.st_size))
    finally:
        _inside.busy = False


_hooked = False


@contextmanager
def exposures(directory: Path) -> Iterator[list[tuple[str, str, int, int]]]:
    """Yields the list of (event, file name, mode, size) seen readable by group or others while inside."""
    global _hooked
    if not _hooked:
        sys.addaudithook(_look)  # cannot be removed: idle (one list check) outside a watch
        _hooked = True
    exposed: list[tuple[str, str, int, int]] = []
    watch = (directory, exposed)
    old_umask = os.umask(0o022)  # the usual default: files others may read unless created private
    _watches.append(watch)
    try:
        yield exposed
    finally:
        _watches.remove(watch)
        os.umask(old_umask)
