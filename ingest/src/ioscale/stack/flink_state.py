"""Which layout of the stream jobs' state ``<home>/data/flink`` holds, checked before Flink starts.

A job restores its checkpoints and savepoints only if its operators, their uids and the classes of their
state are those that wrote them. When a change to stream-jobs breaks that, ``STATE_FORMAT`` is bumped:
`stack up` then refuses the older checkpoints and savepoints with the command that clears them, instead
of submitting a job that fails while restoring. The format is recorded in ``<data>/state-format``, written
when the directory holds no checkpoint or savepoint yet; a directory with checkpoints or savepoints but
no record predates the record.
"""

from __future__ import annotations

from pathlib import Path

from ioscale.errors import StackError

#: Bump when stream-jobs can no longer restore the checkpoints and savepoints the previous version wrote.
STATE_FORMAT = "2"
MARKER = "state-format"
STATE_DIRS = ("checkpoints", "savepoints")


def check(data: Path) -> None:
    """Record ``STATE_FORMAT`` in ``data`` if it holds no job state yet; raise if its state is of another format."""
    marker = data / MARKER
    found = marker.read_text().strip() if marker.is_file() else None
    if found == STATE_FORMAT:
        return
    held = [job for sub in STATE_DIRS if (data / sub).is_dir()
            for job in (data / sub).iterdir() if job.is_dir() and any(job.iterdir())]
    if held:
        paths = " ".join(str(data / sub) for sub in STATE_DIRS)
        raise StackError(
            "flink",
            f"the stream jobs' checkpoints and savepoints in {data} are of state format {found or '1 (unrecorded)'}; "
            f"these jobs read format {STATE_FORMAT} and cannot restore them",
            hint=f"clear them: `make down && rm -rf {paths}`, then `make up`; the jobs start again from the "
                 "Kafka offsets they committed (windows open at that moment are lost, finished results are kept)",
        )
    data.mkdir(parents=True, exist_ok=True)
    marker.write_text(STATE_FORMAT + "\n")
