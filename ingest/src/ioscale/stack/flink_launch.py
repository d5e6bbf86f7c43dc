"""The JVM command lines Flink's role scripts would exec, captured once per configuration.

``bin/jobmanager.sh start-foreground`` runs a JVM of its own (BashJavaUtils, which sizes the memory) and another to
read the Java version before it execs the service's JVM: 6.3 s in CI's logs between the launcher starting the
script and the JobManager's first line, paid again on every restart after a crash, for a command line that only
changes when the configuration does. So each role script runs once with a stand-in for ``java``: every helper call
runs the real java; the final exec of the service class records its arguments and environment instead of starting
it. The Flink component then starts that JVM directly. The record is keyed by everything the scripts read (the
rendered configuration, the distribution's files, the java binary, the host name, the environment handed to them);
any change captures again, and without a valid record the component runs the scripts as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ioscale.errors import StackError

#: role script -> the class its final exec runs
ROLE_CLASSES = {
    "jobmanager": "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
    "taskmanager": "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
}
#: Environment variables Flink's scripts read besides those the component sets (config.sh, bash-java-utils.sh).
SCRIPT_INPUTS = ("JAVA_HOME", "JVM_ARGS", "FLINK_ENV_JAVA_OPTS", "FLINK_ENV_JAVA_OPTS_JM", "FLINK_ENV_JAVA_OPTS_TM",
                 "HADOOP_CLASSPATH", "HADOOP_CONF_DIR", "YARN_CONF_DIR", "HBASE_CONF_DIR", "STD_REDIRECT_TO_FILE")
#: The stand-in's own variables: never part of a recorded environment.
_CAPTURE_VARS = ("IOSCALE_REAL_JAVA", "IOSCALE_CAPTURE_CLASS", "IOSCALE_CAPTURE_OUT")
STAND_IN = """#!/bin/sh
# ioscale (stack/flink_launch.py): records the service JVM's command line instead of starting it.
for a in "$@"; do
  if [ "$a" = "$IOSCALE_CAPTURE_CLASS" ]; then
    printf '%s\\0' "$@" > "$IOSCALE_CAPTURE_OUT.argv"
    env -0 > "$IOSCALE_CAPTURE_OUT.env"
    exit 0
  fi
done
exec "$IOSCALE_REAL_JAVA" "$@"
"""


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]  # added to the launcher's environment, as ProcessSpec.env


def real_java(environ: dict[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    home = environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java", path=environ.get("PATH"))
    if not found:
        raise StackError("flink", "no java found (JAVA_HOME or PATH)", hint="install Java 17 and re-run `ioscale stack up`")
    return found


def cache_key(flink_home: Path, conf_dir: Path, env: dict[str, str], java: str,
              environ: dict[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    h = hashlib.sha256()

    def add(*parts: object) -> None:
        h.update(repr(parts).encode())

    for path in sorted(p for p in conf_dir.rglob("*") if p.is_file()):
        add("conf", path.relative_to(conf_dir).as_posix(), path.read_bytes())
    for sub in ("bin", "lib", "plugins", "opt"):
        root = flink_home / sub
        for path in sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []:
            # Scripts by content; jars by name and size (hashing ~300 MB of them would cost more than it saves).
            add(sub, path.relative_to(root).as_posix(), path.read_bytes() if sub == "bin" and path.suffix == ".sh"
                else path.stat().st_size)
    real = Path(java).resolve()
    add("java", java, str(real), real.stat().st_size, real.stat().st_mtime_ns)
    add("host", socket.gethostname())
    add("env", sorted(env.items()), sorted((k, environ.get(k)) for k in SCRIPT_INPUTS if k not in env))
    return h.hexdigest()


def capture(flink_home: Path, role: str, env: dict[str, str], work: Path, java: str, cwd: Path) -> Launch:
    """Run ``bin/<role>.sh start-foreground`` with the stand-in; returns what it would have exec'd."""
    if role not in ROLE_CLASSES:
        raise ValueError(role)
    shutil.rmtree(work, ignore_errors=True)
    (work / "jdk" / "bin").mkdir(parents=True)
    stand_in = work / "jdk" / "bin" / "java"
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    out = work / role
    base = {**os.environ, **env}
    run_env = {**base, "JAVA_HOME": str(work / "jdk"),
               # the script appends its PID to <pid dir>/flink-<ident>-<service>.pid and numbers its log by the
               # live PIDs there: a private directory keeps the record's log name that of a lone process (0)
               "FLINK_PID_DIR": str(work / "pid"),
               "IOSCALE_REAL_JAVA": java, "IOSCALE_CAPTURE_CLASS": ROLE_CLASSES[role], "IOSCALE_CAPTURE_OUT": str(out)}
    r = subprocess.run([str(flink_home / "bin" / f"{role}.sh"), "start-foreground"], env=run_env, cwd=cwd,
                       capture_output=True, text=True, timeout=180)
    argv_file, env_file = out.with_suffix(".argv"), out.with_suffix(".env")
    if r.returncode != 0 or not argv_file.is_file():
        raise StackError("flink", f"{role}.sh did not reach its JVM (exit {r.returncode}): "
                         f"{(r.stdout + r.stderr)[-1500:]}", hint="check the Flink configuration in data/flink/conf")
    argv = [java, *argv_file.read_text().split("\0")[:-1]]  # "$@" of the stand-in: the arguments, not argv[0]
    recorded = dict(item.split("=", 1) for item in env_file.read_text().split("\0") if "=" in item)
    extra = {k: v for k, v in recorded.items() if k not in _CAPTURE_VARS and (k in env or base.get(k) != v)}
    for name in ("FLINK_PID_DIR", "JAVA_HOME", "PWD"):  # the capture's own, not the service's
        extra.pop(name, None)
    if "JAVA_RUN" in extra:
        extra["JAVA_RUN"] = java
    if base.get("JAVA_HOME"):
        extra["JAVA_HOME"] = base["JAVA_HOME"]
    if env.get("FLINK_PID_DIR"):
        extra["FLINK_PID_DIR"] = env["FLINK_PID_DIR"]
    shutil.rmtree(work, ignore_errors=True)
    return Launch(argv, extra)


def load(record: Path, key: str) -> dict[str, Launch] | None:
    """The recorded launches if they were captured under ``key``."""
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    if data.get("key") != key:
        return None
    return {role: Launch(v["argv"], v["env"]) for role, v in data["roles"].items()}


def encode(key: str, launches: dict[str, Launch]) -> str:
    """The record's text, for ``load``."""
    return json.dumps({"key": key, "roles": {r: {"argv": la.argv, "env": la.env} for r, la in launches.items()}},
                      indent=1)
