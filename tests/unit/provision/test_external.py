"""`ioscale admin init` gives the compose/cluster ClickHouse the same users and rights as the local users.xml."""

import re
import stat
import zipfile
from pathlib import Path

import pytest
from private_files import exposures

from ioscale.errors import ConfigError
from ioscale.provision.external import user_statements, write_superset_bundle
from ioscale.stack.settings import CLICKHOUSE_USERS

REPO = Path(__file__).resolve().parents[3]
ENV = {f"CLICKHOUSE_{r.upper()}_PASSWORD": f"pw-{r}-'q" for r in ("admin", "ingest", "flink", "reader")}


def _users_xml_grants() -> dict[str, set[str]]:
    text = (REPO / "stack/clickhouse/users.xml.tmpl").read_text()
    out = {}
    for role in ("ingest", "flink", "reader"):
        block = re.search(rf"<\$\{{{role}_user\}}>(.*?)</\$\{{{role}_user\}}>", text, re.S).group(1)
        out[role] = {g.strip() for g in re.findall(r"<query>(.*?)</query>", block)}
    return out


def test_grants_mirror_local_users_xml():
    stmts = user_statements(ENV)
    for role, grants in _users_xml_grants().items():
        user = CLICKHOUSE_USERS[role]
        sql_grants = {s.replace(f" TO {user}", "") for s in stmts if s.startswith("GRANT") and s.endswith(f" TO {user}")}
        assert sql_grants == grants, role


def test_reader_is_readonly_and_passwords_are_quoted():
    stmts = user_statements(ENV)
    assert any("readonly = 2 CONST" in s for s in stmts)
    reader = [s for s in stmts if s.startswith(("CREATE USER IF NOT EXISTS ioscale_reader", "ALTER USER ioscale_reader"))]
    assert len(reader) == 2 and all("SETTINGS PROFILE 'ioscale_reader_profile'" in s for s in reader)
    assert all("pw-reader-\\'q" in s for s in reader)  # a quote in a password cannot end the literal
    assert not any("ioscale_admin" in s for s in stmts)  # the admin is the image's own account


def test_missing_password_is_named():
    env = dict(ENV)
    del env["CLICKHOUSE_FLINK_PASSWORD"]
    with pytest.raises(ConfigError, match="CLICKHOUSE_FLINK_PASSWORD is not set"):
        user_statements(env)


def test_superset_bundle_holds_the_reader_password_and_is_private(tmp_path):
    out = tmp_path / "bundle" / "dashboards.zip"
    out.parent.mkdir()
    with exposures(out.parent) as exposed:
        write_superset_bundle(out, REPO, "clickhouse", 8123, ENV)
    assert exposed == []
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with zipfile.ZipFile(out) as z:
        text = "".join(z.read(n).decode() for n in z.namelist() if "/databases/" in n)
    assert "clickhousedb://ioscale_reader:pw-reader-%27q@clickhouse:8123/ioscale" in text


def test_users_the_server_defines_in_users_xml_are_left_alone():
    # The local ClickHouse image (chdb-core's engine) reads accounts from users.xml only: an ALTER USER or GRANT
    # on them fails (read-only storage), so `admin init` must not issue any for them, nor the reader's profile.
    defined = frozenset({CLICKHOUSE_USERS["ingest"], CLICKHOUSE_USERS["reader"], CLICKHOUSE_USERS["admin"]})
    stmts = user_statements(ENV, server_defined=defined)
    assert [s for s in stmts if "ioscale_ingest" in s or "ioscale_reader" in s or "PROFILE" in s] == []
    flink = [s for s in stmts if CLICKHOUSE_USERS["flink"] in s]
    assert stmts == flink and len(flink) == 3  # CREATE, ALTER, its one GRANT
    assert flink[2] == "GRANT SELECT, INSERT ON ioscale.* TO ioscale_flink"


def test_analytics_settings_come_from_ioscale_variables_where_there_is_no_analytics_conf():
    from ioscale.provision import analytics_config

    env = {"IOSCALE_SLO": " p99 < 1 ms ", "IOSCALE_STEADY_STATE": "", "IOSCALE_SATURATION": "port-utilization-pct=90",
           "IOSCALE_HOME": "/x"}
    assert analytics_config.from_env(env) == {"slo": "p99 < 1 ms", "saturation": "port-utilization-pct=90"}
    assert analytics_config.program_args(analytics_config.from_env(env)) == (
        "--slo", "p99 < 1 ms", "--saturation", "port-utilization-pct=90")
    with pytest.raises(ConfigError, match="IOSCALE_LOAD_AXIS"):
        analytics_config.from_env({"IOSCALE_LOAD_AXIS": "sideways"})


def _flink_targets(tmp_path: Path):
    from ioscale.provision.external import ExternalTargets, FlinkTargets

    return (ExternalTargets("kafka:29092", "http://schema-registry:8081", "http://clickhouse:8123"),
            FlinkTargets("http://flink:8081", tmp_path / "jobs.jar", tmp_path / "checkpoints", tmp_path / "state"))


def test_submit_jobs_checks_its_settings_before_it_writes_or_calls_anything(tmp_path, monkeypatch):
    from ioscale.provision.external import submit_jobs_external
    from ioscale.provision.flink import JobSubmitter
    from ioscale.stack.progress import SilentProgress

    monkeypatch.setattr(JobSubmitter, "_rest", lambda *a, **kw: pytest.fail("called Flink"))
    targets, flink = _flink_targets(tmp_path)
    with pytest.raises(ConfigError, match="IOSCALE_SLO"):
        submit_jobs_external(targets, flink, SilentProgress(), {**ENV, "IOSCALE_SLO": "fast please"})
    with pytest.raises(ConfigError, match="CLICKHOUSE_FLINK_PASSWORD"):
        submit_jobs_external(targets, flink, SilentProgress(), {})
    assert not (tmp_path / "state").exists()


def test_submit_jobs_writes_the_password_file_private_and_points_the_job_at_it(tmp_path, monkeypatch):
    from ioscale.provision.external import submit_jobs_external
    from ioscale.provision.flink import JobSubmitter
    from ioscale.stack.progress import SilentProgress

    deployed: list = []
    monkeypatch.setattr(JobSubmitter, "wait_taskmanager", lambda self, timeout_s: None)
    monkeypatch.setattr(JobSubmitter, "submit_jobs", lambda self, **kw: deployed.append(self))
    targets, flink = _flink_targets(tmp_path)
    submit_jobs_external(targets, flink, SilentProgress(), ENV)
    password_file = tmp_path / "state" / "clickhouse.env"
    assert password_file.read_text() == f"CLICKHOUSE_FLINK_PASSWORD={ENV['CLICKHOUSE_FLINK_PASSWORD']}\n"
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    (submitter,) = deployed
    analytics = dict(zip(submitter.jobs[0].program_args[::2], submitter.jobs[0].program_args[1::2]))
    assert analytics["--clickhouse-password-file"] == str(password_file)
    assert ENV["CLICKHOUSE_FLINK_PASSWORD"] not in submitter.jobs[0].program_args
    assert (submitter.rest_url, submitter.data_dir) == ("http://flink:8081", tmp_path / "state")
