"""VMFleet importer: file-name sweep parameters -> steps, one VM per file, percentiles never averaged."""

import pytest

from ioscale.importers.vmfleet import SweepPoint, VmRef, parse_result_name


@pytest.mark.parametrize(
    "name,point,vm",
    [
        # run-sweeptemplate.ps1: result-b$(b)t$(t)o$(o)w$(w)p$(p)$(gspec)-$(addspec)-$(vmspec).xml
        ("result-b4t1o32w30pr-base-vm-base-NODE1-1+vm-base-NODE1-1.xml",
         SweepPoint(4, 1, 32, 30, "r", None, "base"), VmRef("vm-base-NODE1-1", "NODE1")),
        ("l:\\result\\result-b64t2o8w0ps-80vmpn-vm-fast-node-07-12+vm-fast-node-07-12.xml",
         SweepPoint(64, 2, 8, 0, "s", None, "80vmpn"), VmRef("vm-fast-node-07-12", "node-07")),
        ("result-b8t4o16w100psig2048000-base-vm-base-H2-3+vm-base-H2-3.xml",
         SweepPoint(8, 4, 16, 100, "si", 2048000, "base"), VmRef("vm-base-H2-3", "H2")),
        # VMFleet 2.x without addspec, and the hyphenated spelling
        ("result-b4t1o1w0pr-vm-base-N1-1.xml", SweepPoint(4, 1, 1, 0, "r", None, ""), VmRef("vm-base-N1-1", "N1")),
        ("result-b4k-t1-o32-w30-pr-base-vm-base-N1-2+vm-base-N1-2.xml",
         SweepPoint(4, 1, 32, 30, "r", None, "base"), VmRef("vm-base-N1-2", "N1")),
        ("result-b4t1o1w0pr-guest7.xml", SweepPoint(4, 1, 1, 0, "r", None, ""), VmRef("guest7", "unknown")),
    ],
)
def test_result_names(name, point, vm):
    assert parse_result_name(name) == (point, vm)


@pytest.mark.parametrize("name", ["result.xml", "result-b4t1o1w0px-vm.xml", "sweep-b4t1o1w0pr-vm.xml",
                                  "result-b4t1o1w0pr-vm.txt"])
def test_names_that_are_not_vmfleet_results(name):
    assert parse_result_name(name) is None


def test_sweep_directory(kit):
    r = kit.run("vmfleet", kit.DATA / "vmfleet_sweep")
    kit.assert_clean(r, allow_warnings=False)
    steps = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert [e["load"]["outstanding_ios_per_target"] for e in steps] == [1, 32]
    for e in steps:
        load = e["load"]
        assert (load["vm_count"], load["workers_per_target"], load["block_size_bytes"], load["read_pct"],
                load["random_pct"], load["config_labels"]["addspec"], load["config_labels"]["hosts"]) == (
            3, 1, 4096, 70.0, 100.0, "base", "2")
    assert r.run_events[0]["hosts"] == [
        {"host": "NODE1", "hypervisor": "Hyper-V", "sockets": 0, "cores": 0, "logical_processors": 0,
         "memory_bytes": 0},
        {"host": "NODE2", "hypervisor": "Hyper-V", "sockets": 0, "cores": 0, "logical_processors": 0,
         "memory_bytes": 0}]
    vms = {(s["host"], s["vm"]) for s in r.io_samples}
    assert vms == {("NODE1", "vm-base-NODE1-1"), ("NODE1", "vm-base-NODE1-2"), ("NODE2", "vm-base-NODE2-1")}
    assert len(r.io_samples) == 2 * 3 * 2   # steps x VMs x directions
    # every VM keeps its own percentile table; the slow VM's tail is visibly its own
    p99 = {s["vm"]: dict(zip(s["percentile_q"], s["percentile_ns"]))[0.99]
           for s in kit.samples(r, step_index=0, direction="READ")}
    assert p99["vm-base-NODE2-1"] > 2 * max(p99["vm-base-NODE1-1"], p99["vm-base-NODE1-2"])
    assert all(len(s["percentile_q"]) == 106 for s in r.io_samples)
    # CPU is measured inside the guest
    assert {c["scope"] for c in r.cpu_samples} == {"GUEST"}
    assert {c["vm"] for c in r.cpu_samples} == {v for _, v in vms}
    # step 2 starts ten minutes later: RunTime 09:10:0k + 30 s warm-up
    s2 = kit.samples(r, step_index=1, vm="vm-base-NODE2-1")[0]
    assert s2["ts_ms"] == 1711962600000 + 2000 + 30000 and s2["interval_ms"] == 60000


def test_name_and_xml_disagree(kit):
    src = (kit.DATA / "vmfleet_sweep" / "result-b4t1o1w30pr-base-vm-base-NODE1-1+vm-base-NODE1-1.xml").read_bytes()
    r = kit.run_bytes("vmfleet", ("result-b4t1o8w30pr-base-vm-base-NODE1-1+vm-base-NODE1-1.xml", src))
    (w,) = kit.errors_of(r, "warning")
    assert "outstanding 8 in the file name but 1 in the XML profile" in w
    assert r.run_events[1]["load"]["outstanding_ios_per_target"] == 8


def test_unconventional_name_is_still_imported(kit):
    src = (kit.DATA / "vmfleet_sweep" / "result-b4t1o1w30pr-base-vm-base-NODE1-1+vm-base-NODE1-1.xml").read_bytes()
    r = kit.run_bytes("vmfleet", ("guest-output.xml", src))
    assert any("does not follow VMFleet" in w for w in kit.errors_of(r, "warning"))
    assert {s["vm"] for s in r.io_samples} == {"GUEST00"} and len(r.io_samples) == 2
