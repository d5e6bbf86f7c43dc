"""The stream jobs' state format under <home>/data/flink: recorded when there is no job state yet, and older
checkpoints or savepoints refused by `stack up` (FlinkComponent.prepare) with the command that clears them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscale.errors import StackError
from ioscale.stack import flink_state
from ioscale.stack.component import StackContext
from ioscale.stack.flink import FlinkComponent
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings, repo_root


def _component(tmp_path: Path) -> FlinkComponent:
    settings = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": str(tmp_path / "state")})
    return FlinkComponent(StackContext(settings, {}, SilentProgress()))


def _old_checkpoint(data: Path) -> Path:
    chk = data / "checkpoints" / "ioscale-analytics" / "0f3c" / "chk-7"
    chk.mkdir(parents=True)
    (chk / "_metadata").write_bytes(b"state of the previous job classes")
    return chk


def test_a_new_data_dir_records_the_format_and_prepares_again(tmp_path):
    c = _component(tmp_path)
    c.prepare()
    assert (c.data / flink_state.MARKER).read_text() == flink_state.STATE_FORMAT + "\n"
    _old_checkpoint(c.data)  # written by these jobs: the recorded format is theirs
    c.prepare()


def test_empty_state_dirs_without_a_record_are_not_old_state(tmp_path):
    data = tmp_path / "flink"
    (data / "checkpoints" / "ioscale-analytics").mkdir(parents=True)  # a job that never checkpointed
    (data / "savepoints").mkdir()
    flink_state.check(data)
    assert (data / flink_state.MARKER).is_file()


def test_prepare_refuses_checkpoints_from_before_the_record(tmp_path):
    c = _component(tmp_path)
    _old_checkpoint(c.data)
    with pytest.raises(StackError, match=r"state format 1 \(unrecorded\).*cannot restore them") as err:
        c.prepare()
    assert f"`make down && rm -rf {c.data / 'checkpoints'} {c.data / 'savepoints'}`" in err.value.hint
    assert not (c.data / flink_state.MARKER).exists()  # still refused on the next `up`


def test_savepoints_of_another_recorded_format_are_refused(tmp_path, monkeypatch):
    data = tmp_path / "flink"
    (data / "savepoints" / "ioscale-analytics" / "savepoint-1a2b").mkdir(parents=True)
    (data / flink_state.MARKER).write_text("2\n")
    monkeypatch.setattr(flink_state, "STATE_FORMAT", "3")
    with pytest.raises(StackError, match="of state format 2; these jobs read format 3"):
        flink_state.check(data)
