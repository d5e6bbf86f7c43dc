"""The project's dockerd: its own roots and socket, and `stop` undoing exactly the network changes Docker made."""

from pathlib import Path

import os
import stat

from ioscale.stack.docker_engine import (COMPOSE_MODULE, COMPOSE_VERSION, Engine, compose_version, dockerd_argv,
                                         install_compose, undo_commands)
from ioscale.stack.settings import StackSettings

# What `iptables -S` printed on this machine before and after dockerd 20.10 started and a compose network
# (br-3f2a...) came up, with one rule someone else added meanwhile (it must stay).
BEFORE = {
    "iptables": {
        "filter": ["-P INPUT ACCEPT", "-P FORWARD ACCEPT", "-P OUTPUT ACCEPT"],
        "nat": ["-P PREROUTING ACCEPT", "-P INPUT ACCEPT", "-P OUTPUT ACCEPT", "-P POSTROUTING ACCEPT"],
    },
    "links": ["eth0", "ifb0", "ifb1", "lo"],
    "sysctl": {"net/ipv4/ip_forward": "0", "net/bridge/bridge-nf-call-iptables": "1"},
}
AFTER = {
    "iptables": {
        "filter": [
            "-P INPUT ACCEPT", "-P FORWARD DROP", "-P OUTPUT ACCEPT",
            "-N DOCKER", "-N DOCKER-ISOLATION-STAGE-1", "-N DOCKER-ISOLATION-STAGE-2", "-N DOCKER-USER",
            "-A INPUT -p tcp --dport 5201 -j DROP",
            "-A FORWARD -j DOCKER-USER",
            "-A FORWARD -j DOCKER-ISOLATION-STAGE-1",
            "-A FORWARD -o br-3f2a9c4d5e6f -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
            "-A FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
            "-A FORWARD -o docker0 -j DOCKER",
            "-A FORWARD -i docker0 ! -o docker0 -j ACCEPT",
            "-A DOCKER-ISOLATION-STAGE-1 -i docker0 ! -o docker0 -j DOCKER-ISOLATION-STAGE-2",
            "-A DOCKER-ISOLATION-STAGE-1 -j RETURN",
            "-A DOCKER-ISOLATION-STAGE-2 -o docker0 -j DROP",
            "-A DOCKER-ISOLATION-STAGE-2 -j RETURN",
            "-A DOCKER-USER -j RETURN",
        ],
        "nat": [
            "-P PREROUTING ACCEPT", "-P INPUT ACCEPT", "-P OUTPUT ACCEPT", "-P POSTROUTING ACCEPT",
            "-N DOCKER",
            "-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
            "-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER",
            "-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE",
            "-A POSTROUTING -s 172.18.0.0/16 ! -o br-3f2a9c4d5e6f -j MASQUERADE",
            "-A DOCKER -i docker0 -j RETURN",
        ],
    },
    "links": ["br-3f2a9c4d5e6f", "docker0", "eth0", "ifb0", "ifb1", "lo", "veth1a2b3c4", "ifb2"],
    "sysctl": {"net/ipv4/ip_forward": "1", "net/bridge/bridge-nf-call-iptables": "1"},
}


def test_stop_undoes_dockers_rules_chains_policy_links_and_ip_forward_only():
    cmds = [" ".join(c) for c in undo_commands(BEFORE, AFTER)]
    filter_rules = [c for c in cmds if c.startswith("iptables -t filter -D")]
    nat_rules = [c for c in cmds if c.startswith("iptables -t nat -D")]
    assert len(filter_rules) == 11 and len(nat_rules) == 5
    # Rules go last-listed first, so the jumps into DOCKER-USER are gone before DOCKER-USER is deleted.
    assert filter_rules[0] == "iptables -t filter -D DOCKER-USER -j RETURN"
    assert filter_rules[-1] == "iptables -t filter -D FORWARD -j DOCKER-USER"
    assert "iptables -t nat -D OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER" in nat_rules
    assert "iptables -t nat -D POSTROUTING -s 172.18.0.0/16 ! -o br-3f2a9c4d5e6f -j MASQUERADE" in nat_rules
    chains = [c for c in cmds if " -X " in c]
    assert chains == ["iptables -t filter -X DOCKER", "iptables -t filter -X DOCKER-ISOLATION-STAGE-1",
                      "iptables -t filter -X DOCKER-ISOLATION-STAGE-2", "iptables -t filter -X DOCKER-USER",
                      "iptables -t nat -X DOCKER"]
    assert cmds.index(chains[0]) > cmds.index(filter_rules[-1])
    assert "iptables -t filter -P FORWARD ACCEPT" in cmds
    assert [c for c in cmds if c.startswith("ip link")] == [
        "ip link delete br-3f2a9c4d5e6f", "ip link delete docker0", "ip link delete veth1a2b3c4"]
    assert cmds[-1] == "sysctl -q -w net.ipv4.ip_forward=0"
    # Someone else's rule and link stay.
    assert not any("5201" in c or "ifb2" in c for c in cmds)
    assert len(cmds) == 11 + 5 + 5 + 1 + 3 + 1


def test_nothing_to_undo_when_nothing_changed():
    assert undo_commands(BEFORE, BEFORE) == []


def test_dockerd_keeps_to_its_own_directories_socket_and_loopback(tmp_path: Path):
    engine = Engine(StackSettings(home=tmp_path, repo=tmp_path))
    argv = dockerd_argv(engine)
    opts = dict(zip(argv[1::2], argv[2::2]))
    assert opts["--data-root"] == str(tmp_path / "docker" / "data")
    assert opts["--exec-root"] == str(tmp_path / "docker" / "exec")
    assert opts["--pidfile"] == str(tmp_path / "docker" / "dockerd.pid")
    assert opts["--host"] == f"unix://{tmp_path}/docker/docker.sock" == engine.host
    assert opts["--ip"] == "127.0.0.1"
    assert engine.env()["DOCKER_HOST"] == engine.host
    # the docker client finds this engine's compose plugin, never a user's ~/.docker
    assert engine.env()["DOCKER_CONFIG"] == str(tmp_path / "docker" / "config")
    assert engine.spec().log_file == tmp_path / "logs" / "dockerd.log"


# A stand-in for the go command: `mod download -json` names a source directory, `build -o OUT` writes a plugin
# that answers `version --short`; every call is logged.
FAKE_GO = """#!/bin/sh
echo "$PWD $*" >> "$GO_LOG"
if [ "$1" = mod ]; then printf '{"Dir": "%s"}' "$GO_SRC"; exit 0; fi
out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
printf '#!/bin/sh\necho %s\n' "$GO_PRINTS" > "$out"; chmod +x "$out"
"""


def test_compose_is_built_once_from_the_pinned_module_into_the_engines_own_plugins(tmp_path: Path, monkeypatch):
    bin_dir, src = tmp_path / "bin", tmp_path / "src"
    bin_dir.mkdir(), src.mkdir()
    (bin_dir / "go").write_text(FAKE_GO)
    (bin_dir / "go").chmod(0o755)
    log = tmp_path / "go.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GO_LOG", str(log))
    monkeypatch.setenv("GO_SRC", str(src))
    monkeypatch.setenv("GO_PRINTS", COMPOSE_VERSION)
    engine = Engine(StackSettings(home=tmp_path, repo=tmp_path))
    assert compose_version(engine) is None

    assert "built docker compose" in install_compose(engine)
    download, build = log.read_text().splitlines()
    assert download.endswith(f"mod download -json {COMPOSE_MODULE}@{COMPOSE_VERSION}")
    assert build.startswith(f"{src} ") and build.endswith("./cmd")
    assert f"-X {COMPOSE_MODULE}/internal.Version={COMPOSE_VERSION}" in build
    plugin = tmp_path / "docker" / "config" / "cli-plugins" / "docker-compose"
    assert plugin == engine.compose_plugin and plugin.stat().st_mode & stat.S_IXUSR
    assert compose_version(engine) == COMPOSE_VERSION.lstrip("v")

    assert "is installed" in install_compose(engine)  # the pinned version is there: nothing built
    assert len(log.read_text().splitlines()) == 2

    plugin.write_text("#!/bin/sh\necho v2.0.0\n")  # another version in its place is replaced
    assert "built docker compose" in install_compose(engine)
    assert len(log.read_text().splitlines()) == 4
    assert compose_version(engine) == COMPOSE_VERSION.lstrip("v")
