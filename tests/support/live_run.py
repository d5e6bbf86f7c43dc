"""What `ioscale run fio|iperf3` prints first: the run id with its run directory, then the live dashboard's link."""

from __future__ import annotations

import re


def live_run_id(out: list[str], first_line: str) -> str:
    """The run id in ``out[0]``, matched by ``first_line`` (a regex whose two groups, the id and the name of its run
    directory, must agree); ``out[1]`` must be the live dashboard's link to that run."""
    m = re.fullmatch(first_line, out[0])
    assert m and m.group(1) == m.group(2), out[0]
    run_id = m.group(1)
    assert out[1] == f"watch it live: http://127.0.0.1:8088/superset/dashboard/ioscale-live/?run={run_id}"
    return run_id
