import stat

import pytest
from private_files import exposures

from ioscale.errors import ConfigError
from ioscale.stack.settings import DEFAULT_PORTS, SECRET_NAMES, StackSettings, load_secrets


def _env(tmp_path, **kw):
    return {"IOSCALE_REPO": str(tmp_path), "IOSCALE_HOME": str(tmp_path / "state"), **kw}


def test_defaults_bind_loopback_and_default_ports(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    assert s.host == "127.0.0.1"
    assert s.ports == DEFAULT_PORTS
    assert s.home == (tmp_path / "state").resolve()
    assert s.log_dir == s.home / "logs" and s.run_dir == s.home / "run"


def test_port_override_from_environment(tmp_path):
    s = StackSettings.from_env(_env(tmp_path, IOSCALE_KAFKA_PORT="19092", IOSCALE_SUPERSET_PORT="18088"))
    assert s.port("kafka") == 19092 and s.kafka_bootstrap == "127.0.0.1:19092"
    assert s.url("superset") == "http://127.0.0.1:18088"


@pytest.mark.parametrize(
    "key,value,msg",
    [
        ("IOSCALE_KAFAK_PORT", "9092", "unknown setting IOSCALE_KAFAK_PORT"),
        ("IOSCALE_FLINK_PORT", "eighty", "is not a port number"),
        ("IOSCALE_FLINK_PORT", "70000", "outside 1-65535"),
        ("IOSCALE_FLINK_PORT", "8088", "share port"),
    ],
)
def test_bad_settings_are_rejected_with_the_key_named(tmp_path, key, value, msg):
    with pytest.raises(ConfigError, match=msg):
        StackSettings.from_env(_env(tmp_path, **{key: value}))


def test_secrets_generated_once_private_and_stable(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    first = load_secrets(s, create=True)
    assert set(first) == set(SECRET_NAMES)
    assert all(len(v) >= 24 for v in first.values())
    assert len(set(first.values())) == len(first)  # no shared passwords
    assert stat.S_IMODE(s.secrets_file.stat().st_mode) == 0o600
    assert load_secrets(s, create=True) == first  # a second `up` keeps the credentials


def test_secrets_file_is_never_readable_by_others(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    s.home.mkdir(parents=True)
    with exposures(s.home) as exposed:
        load_secrets(s, create=True)
        s.secrets_file.write_text("\n".join(s.secrets_file.read_text().splitlines()[:-1]) + "\n")  # one lost
        s.secrets_file.chmod(0o600)
        exposed.clear()  # the test's own rewrite above is not the code under test
        load_secrets(s, create=True)
    assert exposed == []
    assert stat.S_IMODE(s.secrets_file.stat().st_mode) == 0o600


def test_secrets_are_not_written_through_a_planted_temp_name(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    s.home.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    for name in ("secrets.tmp", "secrets.env.tmp"):
        (s.home / name).symlink_to(tmp_path / "elsewhere" / name)
    values = load_secrets(s, create=True)
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert not s.secrets_file.is_symlink()
    assert load_secrets(s) == values


def test_missing_secret_is_filled_without_touching_others(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    first = load_secrets(s, create=True)
    lines = [l for l in s.secrets_file.read_text().splitlines() if not l.startswith("SUPERSET_SECRET_KEY")]
    s.secrets_file.write_text("\n".join(lines) + "\n")
    again = load_secrets(s, create=True)
    assert again["SUPERSET_SECRET_KEY"] and again["SUPERSET_SECRET_KEY"] != first["SUPERSET_SECRET_KEY"]
    assert {k: v for k, v in again.items() if k != "SUPERSET_SECRET_KEY"} == {
        k: v for k, v in first.items() if k != "SUPERSET_SECRET_KEY"
    }


def test_secrets_required_when_not_creating(tmp_path):
    s = StackSettings.from_env(_env(tmp_path))
    with pytest.raises(ConfigError, match="run `ioscale stack up` first"):
        load_secrets(s, create=False)
