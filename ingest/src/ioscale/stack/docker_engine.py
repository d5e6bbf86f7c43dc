"""A Docker engine of the project's own: `scripts/docker-engine.sh install|start|stop|status`.

    install   apt-get install docker.io (root; otherwise prints the command to run)
    start     dockerd with its data root, exec root, PID file and unix socket under <home>/docker, so it never
              touches a system engine; published ports default to 127.0.0.1 (--ip); log in <home>/logs/dockerd.log
    stop      stops dockerd by its PID, then undoes the network changes it made (see below)
    status    whether it runs, and the DOCKER_HOST to use

Compose v2 (`docker compose`, which testcontainers-python drives) is not in Debian bookworm (its docker-compose is
v1) and no registry serves its binary here, so ``install`` builds the pinned release from its Go module into this
engine's own client config (<home>/docker/config/cli-plugins); ``env`` points DOCKER_CONFIG there.

dockerd changes the host's network: iptables chains and rules (DOCKER, DOCKER-USER, DOCKER-ISOLATION-*,
MASQUERADE for its bridges), net.ipv4.ip_forward=1, the docker0 bridge and one br-* bridge per compose network.
``start`` records the state before (<home>/docker/network-before.json); ``stop`` removes only what was added
since and names Docker or its bridges, so rules others add meanwhile (a fault test's) stay.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.stack import process
from ioscale.stack.process import ProcessSpec
from ioscale.stack.settings import StackSettings

IPTABLES_TABLES = ("filter", "nat")
SYSCTLS = ("net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables", "net/bridge/bridge-nf-call-ip6tables")
#: What the engine creates: its chains, the default bridge, compose networks' bridges, container veths.
_DOCKER_WORD = re.compile(r"\bDOCKER\b|DOCKER-|\bdocker0\b|\bbr-[0-9a-f]{12}\b")
_DOCKER_LINK = re.compile(r"^(docker0|br-[0-9a-f]{12}|veth[0-9a-f]{7})$")
READY_TIMEOUT_S = 60.0
#: The label every container, volume and image the project makes carries (clean-up finds them by it).
LABEL = "io.ioscale.project"
COMPOSE_MODULE = "github.com/docker/compose/v2"
COMPOSE_VERSION = "v2.40.3"


@dataclass(frozen=True)
class Engine:
    settings: StackSettings

    root = Subpath("settings.home", "docker")
    data_root = Subpath("root", "data")
    exec_root = Subpath("root", "exec")
    socket = Subpath("root", "docker.sock")
    pid_file = Subpath("root", "dockerd.pid")
    before_file = Subpath("root", "network-before.json")
    #: The docker client's config directory for this engine: its cli-plugins hold the compose v2 plugin.
    config_dir = Subpath("root", "config")
    compose_plugin = Subpath("config_dir", "cli-plugins", "docker-compose")
    log_file = Subpath("settings.log_dir", "dockerd.log")

    @property
    def host(self) -> str:
        return f"unix://{self.socket}"

    def env(self) -> dict[str, str]:
        """Environment for docker / docker compose / testcontainers against this engine."""
        return {**os.environ, **self.variables()}

    def variables(self) -> dict[str, str]:
        return {"DOCKER_HOST": self.host, "DOCKER_CONFIG": str(self.config_dir)}

    def spec(self) -> ProcessSpec:
        return ProcessSpec(name="dockerd", argv=dockerd_argv(self), log_file=self.log_file,
                           pid_file=self.settings.run_dir / "dockerd.pid", stop_timeout_s=30.0)


def dockerd_argv(engine: Engine) -> list[str]:
    # dockerd's own --pidfile is kept next to the socket: a second engine on the default /var/run/docker.pid
    # would refuse to start. The launcher's PID file (run/dockerd.pid) is what `stop` uses.
    return ["dockerd", "--data-root", str(engine.data_root), "--exec-root", str(engine.exec_root),
            "--pidfile", str(engine.pid_file), "--host", engine.host, "--ip", "127.0.0.1",
            # Keeps the user-facing containers' logs bounded on a long-running test machine.
            "--log-opt", "max-size=20m", "--log-opt", "max-file=2"]


# -- network state: recorded before start, undone after stop ---------------------------------------------------
def iptables_rules(table: str) -> list[str]:
    out = subprocess.run(["iptables", "-t", table, "-S"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def links() -> list[str]:
    return sorted(p.name for p in Path("/sys/class/net").iterdir())


def sysctls() -> dict[str, str]:
    out = {}
    for name in SYSCTLS:
        path = Path("/proc/sys") / name
        if path.exists():
            out[name] = path.read_text().strip()
    return out


def network_state() -> dict:
    have_iptables = shutil.which("iptables") is not None
    return {"iptables": {t: iptables_rules(t) if have_iptables else [] for t in IPTABLES_TABLES},
            "links": links(), "sysctl": sysctls()}


def undo_commands(before: dict, after: dict) -> list[list[str]]:
    """The commands that take ``after`` back to ``before`` for what Docker added (pure; unit-tested).

    Rules first (deleted in reverse order of listing, so jumps go before the chains they name), then the
    chains Docker created and the built-in chains' policies, then its links, then sysctls it changed.
    Anything else added meanwhile stays.
    """
    cmds: list[list[str]] = []
    for table in IPTABLES_TABLES:
        old = set(before["iptables"].get(table, []))
        added = [r for r in after["iptables"].get(table, []) if r not in old and _DOCKER_WORD.search(r)]
        rules = [r for r in added if r.startswith("-A ")]
        chains = [r for r in added if r.startswith("-N ")]
        for rule in reversed(rules):
            cmds.append(["iptables", "-t", table, "-D", *rule[3:].split()])
        for chain in chains:
            cmds.append(["iptables", "-t", table, "-X", chain.split()[1]])
        # dockerd sets the FORWARD policy to DROP: put back each built-in chain's policy from before.
        policies = {r.split()[1]: r.split()[2] for r in before["iptables"].get(table, []) if r.startswith("-P ")}
        for rule in after["iptables"].get(table, []):
            if rule.startswith("-P ") and rule.split()[1] in policies and rule.split()[2] != policies[rule.split()[1]]:
                cmds.append(["iptables", "-t", table, "-P", rule.split()[1], policies[rule.split()[1]]])
    for link in after["links"]:
        if link not in before["links"] and _DOCKER_LINK.match(link):
            cmds.append(["ip", "link", "delete", link])
    for name, value in before["sysctl"].items():
        if after["sysctl"].get(name, value) != value:
            cmds.append(["sysctl", "-q", "-w", f"{name.replace('/', '.')}={value}"])
    return cmds


# -- commands -------------------------------------------------------------------------------------------------
#: Debian package -> a command it installs.
PACKAGES = {"docker.io": "dockerd", "iptables": "iptables", "debootstrap": "debootstrap"}


def install() -> str:
    pkgs = [pkg for pkg, cmd in PACKAGES.items() if not shutil.which(cmd)]
    if not pkgs:
        return f"{', '.join(PACKAGES)} are installed"
    if os.geteuid() != 0:
        raise StackError("docker", f"{', '.join(pkgs)} not installed",
                         hint=f"run: sudo apt-get install --no-install-recommends {' '.join(pkgs)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *pkgs], check=True, env=env)
    return f"installed {' '.join(pkgs)}"


def compose_version(engine: Engine) -> str | None:
    """The version the installed compose plugin reports, None if there is none."""
    if not engine.compose_plugin.exists():
        return None
    r = subprocess.run([str(engine.compose_plugin), "version", "--short"], capture_output=True, text=True, timeout=30)
    return r.stdout.strip().lstrip("v") if r.returncode == 0 else None


def install_compose(engine: Engine) -> str:
    """Build compose COMPOSE_VERSION from its Go module (pinned, checksummed by the Go module mirror's sum
    database) into the engine's cli-plugins; a no-op when that version is there. ~3 min of 2 cores the first time."""
    want = COMPOSE_VERSION.lstrip("v")
    if compose_version(engine) == want:
        return f"docker compose {want} is installed ({engine.compose_plugin})"
    go = shutil.which("go") or next((p for p in ("/usr/local/go/bin/go",) if Path(p).exists()), None)
    if go is None:
        raise StackError("docker", f"compose {want} is built from source and needs the Go toolchain",
                         hint="install Go 1.24 or newer (the go command on PATH), then run "
                              "scripts/docker-engine.sh install again")
    env = {**os.environ, "CGO_ENABLED": "0", "GOFLAGS": "-mod=readonly -trimpath"}
    dl = subprocess.run([go, "mod", "download", "-json", f"{COMPOSE_MODULE}@{COMPOSE_VERSION}"],
                        capture_output=True, text=True, env=env)
    if dl.returncode != 0:
        raise StackError("docker", f"go mod download {COMPOSE_MODULE}@{COMPOSE_VERSION} failed:\n{dl.stdout[-2000:]}"
                         f"{dl.stderr[-2000:]}", hint="check that the Go module proxy is reachable (go env GOPROXY)")
    source = json.loads(dl.stdout)["Dir"]
    engine.compose_plugin.parent.mkdir(parents=True, exist_ok=True)
    partial = engine.compose_plugin.with_suffix(".partial")
    ldflags = f"-s -w -X {COMPOSE_MODULE}/internal.Version={COMPOSE_VERSION}"
    build = subprocess.run(["nice", "-n", "10", go, "build", "-ldflags", ldflags, "-o", str(partial), "./cmd"],
                           cwd=source, capture_output=True, text=True, env=env)
    if build.returncode != 0:
        raise StackError("docker", f"building compose {want} failed:\n{build.stderr[-3000:]}",
                         hint="fix the cause above, then run scripts/docker-engine.sh install again")
    partial.replace(engine.compose_plugin)
    if compose_version(engine) != want:
        raise StackError("docker", f"the compose plugin built from {COMPOSE_MODULE}@{COMPOSE_VERSION} reports "
                         f"{compose_version(engine)!r}", hint=f"remove {engine.compose_plugin} and run install again")
    return f"built docker compose {want} into {engine.compose_plugin}"


def running(engine: Engine) -> int | None:
    return process.read_pid(engine.spec().pid_file)


def answers(engine: Engine) -> bool:
    r = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], env=engine.env(),
                       capture_output=True, text=True, timeout=10)
    return r.returncode == 0 and bool(r.stdout.strip())


def start(engine: Engine) -> int:
    if not shutil.which("dockerd"):
        raise StackError("docker", "dockerd is not installed", hint="run scripts/docker-engine.sh install (as root)")
    if os.geteuid() != 0:
        raise StackError("docker", "dockerd must run as root (rootless Docker is not set up by this script)",
                         hint="run scripts/docker-engine.sh start as root")
    pid = running(engine)
    if pid is None:
        for d in (engine.data_root, engine.exec_root, engine.settings.log_dir):
            d.mkdir(parents=True, exist_ok=True)
        # Only the first start after a clean stop records: a crashed engine's leftovers are not "before".
        if not engine.before_file.exists():
            engine.before_file.write_text(json.dumps(network_state(), indent=1))
        pid = process.start(engine.spec())
    t0 = time.monotonic()
    while not answers(engine):
        if process.read_pid(engine.spec().pid_file) is None:
            raise StackError("docker", f"dockerd exited while starting; last lines:\n{process.tail(engine.log_file, 15)}",
                             str(engine.log_file), "fix the cause above, then run scripts/docker-engine.sh stop and start")
        if time.monotonic() - t0 > READY_TIMEOUT_S:
            raise StackError("docker", f"dockerd not answering after {READY_TIMEOUT_S:.0f}s", str(engine.log_file),
                             "check the log; scripts/docker-engine.sh stop undoes the start")
        time.sleep(0.5)
    return pid


def stop(engine: Engine) -> list[list[str]]:
    """Stop dockerd (and its containerd) and undo its network changes; returns the undo commands run."""
    process.stop(engine.spec())
    if not engine.before_file.exists():
        return []
    before = json.loads(engine.before_file.read_text())
    cmds = undo_commands(before, network_state())
    failed = []
    for cmd in cmds:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            failed.append(f"{' '.join(cmd)}: {r.stderr.strip()}")
    if failed:
        raise StackError("docker", "could not undo every network change:\n  " + "\n  ".join(failed),
                         hint=f"undo these by hand; the state before start is in {engine.before_file}")
    engine.before_file.unlink()
    return cmds
