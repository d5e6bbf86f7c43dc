"""The full-disk write guard (stack/clickhouse/wait_for_space.c) on a real loaded object.

zlib stands in for the engine: like it, it calls libc's write through its own imports. /dev/full answers every
write with ENOSPC. Unguarded, gzclose reports the failure at once; guarded, the write waits (and says so on
stderr) until space returns, which on /dev/full is never, so the child is still waiting when it is stopped.
The engine itself on a filling tmpfs: tests/integration/clickhouse/test_full_disk.py.
"""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ioscale.stack import clickhouse as ch
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings, repo_root

ZLIB = ctypes.util.find_library("z")

CHILD = textwrap.dedent("""
    import ctypes, sys
    zlib = ctypes.CDLL(sys.argv[1])
    if sys.argv[2] != "-":
        path = next(line.split()[-1] for line in open("/proc/self/maps") if "/libz.so" in line)
        print("hooked", ctypes.CDLL(sys.argv[2]).ioscale_wait_for_space_hook(path.encode()), flush=True)
    zlib.gzopen.restype = ctypes.c_void_p
    gz = zlib.gzopen(b"/dev/full", b"wb")
    zlib.gzwrite(ctypes.c_void_p(gz), b"x" * 100_000, 100_000)
    print("gzclose", zlib.gzclose(ctypes.c_void_p(gz)), flush=True)
""")


@pytest.fixture(scope="module")
def guard(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("home")
    settings = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": str(home)})
    return ch.ClickHouseComponent(StackContext(settings, {}, SilentProgress())).build_wait_for_space()


def run(library: str, guard: str, timeout_s: float) -> tuple[str, str, bool]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, library, guard], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return out, err, False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return out, err, True


@pytest.mark.skipif(ZLIB is None or not Path("/dev/full").exists(), reason="needs zlib and /dev/full")
def test_a_write_meeting_a_full_disk_waits_instead_of_failing(guard: Path) -> None:
    out, _, still_running = run(ZLIB, "-", 20)
    assert not still_running and "gzclose -1" in out  # Z_ERRNO: the failure zlib (or the engine) would get

    out, err, still_running = run(ZLIB, str(guard), 2.5)
    hooked = int(out.split("hooked ")[1].split()[0])
    assert hooked >= 1  # zlib's write import
    assert still_running and "gzclose" not in out
    assert "wait_for_space: no space left on device writing fd" in err


def test_hooking_an_object_that_is_not_loaded_says_so(guard: Path, tmp_path: Path) -> None:
    lib = ctypes.CDLL(str(guard))
    assert lib.ioscale_wait_for_space_hook(str(tmp_path / "absent.so").encode()) == -1
    assert lib.ioscale_wait_for_space_hook(str(guard).encode()) == 0  # loaded, but imports no write of its own
