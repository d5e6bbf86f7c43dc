"""Provisioning ClickHouse: what the migrations are rendered with."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscale.paths import repo_root
from ioscale.provision import clickhouse as ch
from ioscale.stack.settings import StackSettings


@pytest.fixture
def settings(tmp_path: Path) -> StackSettings:
    env = {"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": str(tmp_path / "home"),
           "IOSCALE_CLICKHOUSE_HTTP_PORT": "18123", "IOSCALE_CLICKHOUSE_TCP_PORT": "19000"}
    return StackSettings.from_env(env)


def test_migration_placeholders_follow_settings(settings: StackSettings) -> None:
    assert ch.migration_placeholders(settings) == {
        "kafka_bootstrap": "127.0.0.1:9092",
        "registry_url": "http://127.0.0.1:8081",
    }
