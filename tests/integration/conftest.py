"""Session fixture `stack`: the local stack, brought up once (or reused if already running)."""

from __future__ import annotations

import pytest

from endpoints import StackEndpoints, from_settings, keep_stack, stack_is_up


@pytest.fixture(scope="session")
def stack() -> StackEndpoints:
    from ioscale.stack.launcher import Launcher
    from ioscale.stack.settings import load_secrets

    launcher = Launcher()
    reuse = stack_is_up(launcher)
    if not reuse:
        launcher.up()  # installs what is missing; prints progress on stderr
    endpoints = from_settings(launcher.settings, load_secrets(launcher.settings), started_here=not reuse)
    yield endpoints
    # A stack we found running belongs to the developer; one we started, we stop.
    if not reuse and not keep_stack():
        launcher.down()
