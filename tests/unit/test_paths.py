"""write_private: a secret file is owner-only from its first byte, whole, and never written through a planted path."""

import stat

import pytest
from private_files import exposures

from ioscale.paths import write_private


@pytest.mark.parametrize("data", ["KEY=secret\n", b"\x00binary secret"])
def test_new_file_is_private_at_every_moment(tmp_path, data):
    target = tmp_path / "secrets.env"
    with exposures(tmp_path) as exposed:
        write_private(target, data)
    assert exposed == []
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_bytes() == (data.encode() if isinstance(data, str) else data)
    assert [p.name for p in tmp_path.iterdir()] == ["secrets.env"]  # no temp file left


def test_loosened_file_is_replaced_private(tmp_path):
    target = tmp_path / "users.xml"
    target.write_text("old")
    target.chmod(0o644)
    write_private(target, "new hashes")
    assert (stat.S_IMODE(target.stat().st_mode), target.read_text()) == (0o600, "new hashes")


def test_planted_temp_names_are_not_written_through(tmp_path):
    """A symlink at any fixed temp name (``x.tmp``, ``x.env.tmp``) would carry the secret elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    for name in ("secrets.tmp", "secrets.env.tmp", ".secrets.env.tmp"):
        (home / name).symlink_to(elsewhere / name)
    write_private(home / "secrets.env", "KEY=secret\n")
    assert list(elsewhere.iterdir()) == []
    assert not (home / "secrets.env").is_symlink() and (home / "secrets.env").read_text() == "KEY=secret\n"


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "secrets.env"
    write_private(target, "KEY=old\n")
    with pytest.raises(TypeError):
        write_private(target, 17)  # type: ignore[arg-type]
    assert target.read_text() == "KEY=old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["secrets.env"]
