"""Session fixtures: `stack`, the local stack, brought up once (or reused if already running), or with
IOSCALE_STACK=containers the same topology in containers (containers.py, scripts/test-containers.sh); `sweep` and
`analysed_sweep`, a short simulated sweep through it (sim_sweep.py)."""

from __future__ import annotations

import pytest

import containers
from endpoints import StackEndpoints, from_settings, keep_stack, running_components
from sim_sweep import analysed_sweep, sweep  # noqa: F401  (session fixtures shared by superset/ and report/)


@pytest.fixture(scope="session")
def stack(tmp_path_factory) -> StackEndpoints:
    if containers.wanted():
        with containers.container_stack(tmp_path_factory.mktemp("container-stack")) as endpoints:
            yield endpoints
        return
    from ioscale.provision.launcher import Launcher
    from ioscale.stack.settings import load_secrets

    launcher = Launcher()
    before = running_components(launcher)
    if len(before) < len(launcher.status()):
        try:
            launcher.up()  # installs what is missing, reuses what runs, resubmits jobs; progress on stderr
        except BaseException:
            # A failed start must not leave half a stack running for the next session to trip over.
            if not keep_stack():
                launcher.down([st.name for st in launcher.status() if st.name not in before])
            raise
    started = [n for n in (st.name for st in launcher.status()) if n not in before]
    yield from_settings(launcher.settings, load_secrets(launcher.settings), started_here=bool(started))
    # Components we found running belong to the developer; the ones we started, we stop.
    if started and not keep_stack():
        launcher.down(started)
