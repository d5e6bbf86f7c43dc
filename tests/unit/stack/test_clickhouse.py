"""ClickHouse config.xml and users.xml as rendered from stack/clickhouse/*.tmpl: what the server will see."""

from __future__ import annotations

import hashlib
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from private_files import exposures

from ioscale.errors import StackError
from ioscale.stack import clickhouse as ch
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import CLICKHOUSE_USERS, StackSettings, repo_root

SECRETS = {
    "CLICKHOUSE_ADMIN_PASSWORD": "adm-pw-1",
    "CLICKHOUSE_INGEST_PASSWORD": "ing-pw-2",
    "CLICKHOUSE_FLINK_PASSWORD": "fli-pw-3",
    "CLICKHOUSE_READER_PASSWORD": "rea-pw-4",
}


@pytest.fixture
def settings(tmp_path: Path) -> StackSettings:
    env = {"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": str(tmp_path / "home"),
           "IOSCALE_CLICKHOUSE_HTTP_PORT": "18123", "IOSCALE_CLICKHOUSE_TCP_PORT": "19000"}
    return StackSettings.from_env(env)


@pytest.fixture
def component(settings: StackSettings) -> ch.ClickHouseComponent:
    return ch.ClickHouseComponent(StackContext(settings, dict(SECRETS), SilentProgress()))


def users_xml(settings: StackSettings) -> ET.Element:
    template = (ch.template_dir(settings) / "users.xml.tmpl").read_text()
    return ET.fromstring(ch.render_users(SECRETS, template))


def test_config_binds_loopback_ports_paths_and_logs(settings: StackSettings, component) -> None:
    component.prepare()
    root = ET.parse(component.config_file).getroot()
    assert root.findtext("listen_host") == "127.0.0.1"
    assert (root.findtext("http_port"), root.findtext("tcp_port")) == ("18123", "19000")
    assert root.findtext("path") == f"{settings.data_dir / 'clickhouse'}/"
    assert root.findtext("users_config") == str(component.users_file)
    assert root.findtext("logger/log") == str(settings.log_dir / "clickhouse-server.log")
    assert root.findtext("timezone") == "UTC"
    # LocalServer reads only ./config.xml: the process must start in the config's directory.
    assert component.config_file.name == "config.xml"
    (spec,) = component.processes()
    assert spec.cwd == component.config_file.parent
    assert spec.argv[-4:] == ["--config", str(component.config_file),
                              "--wait-for-space", str(ch.wait_for_space_library(settings))]
    # Built by prepare(): the server refuses to start with a guard it cannot load.
    assert ch.wait_for_space_library(settings).is_file()
    assert spec.ports == (18123, 19000)
    # clickhouse-local's one-or-two-thread background pools starve Kafka tables; ours are larger.
    assert int(root.findtext("background_message_broker_schedule_pool_size")) >= 8
    assert root.findtext("allow_plaintext_password") == "0"


def test_users_have_sha256_passwords_only(settings: StackSettings) -> None:
    users = users_xml(settings).find("users")
    rendered = ET.tostring(users, encoding="unicode")
    for role, name in CLICKHOUSE_USERS.items():
        user = users.find(name)
        password = SECRETS[f"CLICKHOUSE_{role.upper()}_PASSWORD"]
        assert user.findtext("password_sha256_hex") == hashlib.sha256(password.encode()).hexdigest()
        assert user.find("password") is None and user.find("no_password") is None
        assert password not in rendered
        assert {ip.text for ip in user.findall("networks/ip")} == {"127.0.0.1", "::1"}
    assert {u.tag for u in users} == {"default", *CLICKHOUSE_USERS.values()}


def test_grants_per_role(settings: StackSettings) -> None:
    root = users_xml(settings)
    users = root.find("users")

    def grants(role: str) -> list[str]:
        return [q.text for q in users.find(CLICKHOUSE_USERS[role]).findall("grants/query")]

    admin = users.find(CLICKHOUSE_USERS["admin"])
    assert admin.findtext("access_management") == "1" and admin.find("grants") is None  # => ALL
    assert grants("ingest") == ["GRANT SELECT, INSERT ON ioscale.*"]
    assert grants("flink") == ["GRANT SELECT, INSERT ON ioscale.*"]
    assert grants("reader") == ["GRANT SELECT ON ioscale.*"]
    reader_profile = users.find(CLICKHOUSE_USERS["reader"]).findtext("profile")
    # readonly=2: no writes or DDL, yet per-query settings from clients still work.
    assert root.find(f"profiles/{reader_profile}").findtext("readonly") == "2"


def test_default_user_cannot_be_used_from_outside(settings: StackSettings) -> None:
    root = users_xml(settings)
    default = root.find("users/default")
    # The engine's own session needs it passwordless; one session, held by the engine, locks it.
    assert default.find("no_password") is not None
    profile = root.find(f"profiles/{default.findtext('profile')}")
    assert profile.findtext("max_sessions_for_user") == "1"
    assert profile.find("constraints/max_sessions_for_user/readonly") is not None
    assert [ip.text for ip in default.findall("networks/ip")] == ["127.0.0.1"]
    assert [q.text for q in default.findall("grants/query")] == [
        "GRANT SYSTEM LISTEN ON *.*", "GRANT SELECT ON system.numbers"]


def test_users_file_is_private_and_rerendered(component) -> None:
    component.prepare()
    assert stat.S_IMODE(component.users_file.stat().st_mode) == 0o600
    before = component.users_file.read_text()
    component.ctx.secrets["CLICKHOUSE_READER_PASSWORD"] = "rotated"
    component.users_file.chmod(0o644)  # someone loosened it: the next prepare tightens it again
    component.prepare()
    assert stat.S_IMODE(component.users_file.stat().st_mode) == 0o600
    assert component.users_file.read_text() != before
    assert hashlib.sha256(b"rotated").hexdigest() in component.users_file.read_text()
    assert not list(component.conf_dir.glob("*.tmp"))


def test_users_file_is_never_readable_by_others_even_over_a_stale_temp(component) -> None:
    """A temp file left by a crash (mode 0644) must not be reused: its mode would hold until a chmod."""
    component.conf_dir.mkdir(parents=True, exist_ok=True)
    stale = component.users_file.with_name(component.users_file.name + ".tmp")
    stale.write_text("left by a crash")
    stale.chmod(0o644)
    with exposures(component.conf_dir) as exposed:
        component.prepare()
    assert [e for e in exposed if e[1] != stale.name or e[3] != len("left by a crash")] == []
    assert stat.S_IMODE(component.users_file.stat().st_mode) == 0o600
    assert hashlib.sha256(b"rea-pw-4").hexdigest() in component.users_file.read_text()


def test_missing_secret_names_the_key(settings: StackSettings) -> None:
    secrets = dict(SECRETS)
    del secrets["CLICKHOUSE_FLINK_PASSWORD"]
    template = (ch.template_dir(settings) / "users.xml.tmpl").read_text()
    with pytest.raises(StackError, match="CLICKHOUSE_FLINK_PASSWORD"):
        ch.render_users(secrets, template)


def test_unknown_role_is_rejected() -> None:
    with pytest.raises(ValueError, match="admin, ingest, flink, reader"):
        ch.user_and_password(SECRETS, "superuser")


def test_endpoints_point_at_secrets_without_revealing_them(component, settings: StackSettings) -> None:
    shown = " ".join(f"{e.label} {e.value}" for e in component.endpoints())
    assert "http://127.0.0.1:18123" in shown and "clickhouse://127.0.0.1:19000" in shown
    assert str(settings.secrets_file) in shown and "CLICKHOUSE_READER_PASSWORD" in shown
    assert not any(pw in shown for pw in SECRETS.values())


def test_keep_alive_query_starts_both_listeners_and_stops_on_the_flag() -> None:
    from ioscale.services import clickhouse_server as srv

    sql = srv.serve_sql()
    assert sql.index("SYSTEM START LISTEN HTTP") < sql.index("SYSTEM START LISTEN TCP") < sql.index("SELECT")
    assert f"{srv.KEEP_ALIVE_UDF}(number) LIMIT 1" in sql and "max_block_size = 1" in sql


def test_server_reads_data_path_from_config(tmp_path: Path) -> None:
    from ioscale.services import clickhouse_server as srv

    cfg = tmp_path / "config.xml"
    cfg.write_text("<clickhouse><path>/var/x/ch/</path><timezone>UTC</timezone></clickhouse>")
    assert srv.data_path(cfg) == Path("/var/x/ch")
    assert srv.server_timezone(cfg) == "UTC"
    cfg.write_text("<clickhouse><tcp_port>1</tcp_port></clickhouse>")
    with pytest.raises(ValueError, match="no <path>"):
        srv.data_path(cfg)
    assert srv.server_timezone(cfg) is None


def test_merge_settings_are_the_same_under_docker_compose(component) -> None:
    """Merges at a lower CPU priority and with less rewriting, on the local stack and in compose alike."""
    component.prepare()
    local = ET.parse(component.config_file).getroot()
    compose = ET.parse(repo_root() / "stack" / "docker" / "clickhouse-ioscale.xml").getroot()
    for key in ("os_threads_nice_value_merge_mutate", "merge_tree/merge_selector_base"):
        assert local.findtext(key) is not None and local.findtext(key) == compose.findtext(key), key
    assert int(local.findtext("os_threads_nice_value_merge_mutate")) > 0  # lower priority than inserts, queries
    # The server's query and part history is kept, and not forever.
    for log in ("query_log", "part_log"):
        assert "TTL" in local.findtext(f"{log}/engine")
    compose_file = (repo_root() / "docker-compose.yml").read_text()
    assert "clickhouse-ioscale.xml:/etc/clickhouse-server/config.d/" in compose_file
