from __future__ import annotations

import json

from ioscale.collectors.fio_runner import override_job_text, split_reports


def test_override_job_text_appends_to_every_section() -> None:
    text = "; comment\n[global]\nbs=4k\niodepth=4\n[a]\niodepth=1\n[b]\nrw=read\n"
    out = override_job_text(text, "iodepth", "8").splitlines()
    assert out == ["; comment", "[global]", "bs=4k", "iodepth=4", "iodepth=8", "[a]", "iodepth=1", "iodepth=8",
                   "[b]", "rw=read", "iodepth=8"]


def test_split_reports_handles_partial_and_braces_in_strings() -> None:
    a = json.dumps({"x": "a}b{", "n": {"k": 1}}, indent=2)
    b = json.dumps({"y": 2}, indent=2)
    docs, rest = split_reports("note: hi\n" + a + "\n" + b[:5])
    assert docs == [a] and rest == b[:5]
    docs, rest = split_reports(rest + b[5:] + "\n")
    assert docs == [b] and rest.strip() == ""


def test_ignored_options_names_only_the_values_fio_used_instead() -> None:
    from ioscale.collectors.fio_runner import ignored_options
    from ioscale.importers.fio import FioDoc, Pairs

    # fio 3.33 with `--iodepth=8 --direct=0` and a job file whose job b sets iodepth=1 itself
    doc = FioDoc(global_options=Pairs([("iodepth", "8"), ("direct", "0")]),
                 jobs=[Pairs([("jobname", "a"), ("job options", Pairs([("rw", "read")]))]),
                       Pairs([("jobname", "b"), ("job options", Pairs([("iodepth", "1")]))])])
    assert ignored_options(["--iodepth=8", "--direct=0", "--eta=never", "--name"], doc) == [
        "fio ignored --iodepth=8: the job file sets iodepth=1 (job file settings win over command-line ones; edit "
        "the job file or use --sweep iodepth=...)"]
    assert ignored_options(["--iodepth=8"], None) == []
