"""Flink's REST API as ``provision.flink.JobSubmitter`` calls it, in memory: a stand-in for its ``_rest``."""

from __future__ import annotations

from typing import Any

ROOT_EXCEPTION = "java.lang.IllegalStateException: Failed to rollback to checkpoint"


def fake_rest(runs: list[dict], running: dict[str, str] | None = None, run_states: list[str] | None = None):
    """A ``JobSubmitter._rest`` replacement: one TaskManager, ``running`` (name -> job id) active, a jar upload, and
    runs whose bodies go to ``runs`` (ids j1, j2, ...) and which are in ``run_states`` (one per run; default
    RUNNING, all tasks running); a run's exceptions name ``ROOT_EXCEPTION``."""
    def rest(self, method: str, path: str, timeout_s: float = 0, **kw: Any) -> Any:
        if path == "/overview":
            return {"taskmanagers": 1}
        if path == "/jobs/overview":
            return {"jobs": [{"name": n, "jid": i, "state": "RUNNING", "start-time": 1}
                             for n, i in (running or {}).items()]}
        if path == "/jars":
            return {"files": []}
        if path == "/jars/upload":
            return {"filename": "/u/a_ioscale-stream-jobs.jar"}
        if path.endswith("/run"):
            runs.append(kw["json"])
            return {"jobid": f"j{len(runs)}"}
        if path.endswith("/exceptions"):
            return {"rootException": ROOT_EXCEPTION}
        state = run_states[int(path.split("/j")[-1]) - 1] if run_states else "RUNNING"
        return {"state": state, "vertices": [{"status": "RUNNING"}]}

    return rest
