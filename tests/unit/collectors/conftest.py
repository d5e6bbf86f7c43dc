"""Helpers for collector tests: the shared FakeProducer (tests/support) and an in-memory /proc and /sys."""

from __future__ import annotations

import pytest
from fake_producer import FakeProducer


@pytest.fixture
def producer() -> FakeProducer:
    return FakeProducer()


class FakeFs:
    """An in-memory /proc and /sys for read_snapshot: files by path, symlinks by path -> resolved target."""

    def __init__(self, files: dict[str, str] | None = None, links: dict[str, str] | None = None) -> None:
        self.files = dict(files or {})
        self.links = dict(links or {})

    def read_file(self, path: str) -> str | None:
        return self.files.get(path)

    def list_dir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix):].split("/")[0] for p in [*self.files, *self.links] if p.startswith(prefix)})

    def resolve_link(self, path: str) -> str | None:
        return self.links.get(path)

    def nic(self, name: str, device_path: str | None, driver: str = "", *, rx_bytes: int = 0,
            speed_mbps: int | None = None) -> "FakeFs":
        """A /sys/class/net interface with byte/packet/error counters and, unless virtual, a device link."""
        base = f"/sys/class/net/{name}"
        for f in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors", "tx_errors"):
            self.files[f"{base}/statistics/{f}"] = f"{rx_bytes if f == 'rx_bytes' else 0}\n"
        if speed_mbps is not None:
            self.files[f"{base}/speed"] = f"{speed_mbps}\n"
        if device_path is not None:
            self.links[f"{base}/device"] = device_path
            if driver:
                self.links[f"{device_path}/driver"] = f"/sys/bus/pci/drivers/{driver}"
        return self

    def fc_host(self, name: str, device_path: str, pci_driver: str, *, speed: str = "16 Gbit") -> "FakeFs":
        """A /sys/class/fc_host port; its device is the SCSI host under the HBA's PCI function."""
        base = f"/sys/class/fc_host/{name}"
        for f in ("rx_words", "tx_words", "rx_frames", "tx_frames", "error_frames"):
            self.files[f"{base}/statistics/{f}"] = "0x0\n"
        self.files[f"{base}/speed"] = speed
        self.links[f"{base}/device"] = device_path
        self.links[device_path.rsplit("/", 1)[0] + "/driver"] = f"/sys/bus/pci/drivers/{pci_driver}"
        return self


@pytest.fixture
def fake_fs() -> type[FakeFs]:
    return FakeFs
