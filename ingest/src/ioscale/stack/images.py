"""The project's container images, built on this machine: `scripts/docker-images.sh [build|list] [NAME...]`.

No image registry is reachable here, so every image starts from ``local/debian:bookworm``: a minbase
root filesystem made with debootstrap from the mirror the host's own apt sources name, with the host's CA bundle
(HTTPS inside), imported into the engine. Each service image then adds the SAME pinned artifacts the local stack
runs: the Kafka jars and the Flink distribution from ``<home>/dist`` (what ``ioscale stack up`` installed; one
home per version pin, no second download), the ClickHouse engine and the registry from the ioscale package's
locks, Superset from its lock. Recipes live in stack/docker/local/.

Cache: every image carries the label ``io.ioscale.recipe`` = a hash of its Dockerfile, its parent's recipe, the
repo files it copies and the install markers of the artifacts it takes from ``<home>/dist``; a build is skipped
when the tagged image has the same hash. Otherwise ``docker build`` runs under ``nice -n 10`` (layer cache helps).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ioscale.errors import StackError
from ioscale.stack.commands import run_logged
from ioscale.stack.docker_engine import LABEL, Engine
from ioscale.stack.progress import Progress
from ioscale.stack.settings import StackSettings

RECIPE_LABEL = "io.ioscale.recipe"
BASE_IMAGE = "local/debian:bookworm"
SUITE = "bookworm"
#: curl and wget: the compose health checks use them, as in the official images.
BASE_PACKAGES = ("ca-certificates", "curl", "wget")
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
#: CAs the host added to Debian's (a proxy's, a company's): copied in too, so that update-ca-certificates inside,
#: and Java's trust store that ca-certificates-java builds from its result, trust them (the bundle alone reaches
#: curl, apt and pip, not Java: Maven in the build image failed with "PKIX path building failed" without them).
HOST_LOCAL_CAS = Path("/usr/local/share/ca-certificates")
RECIPES_DIR = Path("stack", "docker", "local")
_SKIP = re.compile(r"(^|/)(__pycache__|[^/]*\.egg-info|\.pytest_cache|target)(/|$)|\.pyc$")


@dataclass(frozen=True)
class Recipe:
    name: str
    tag: str
    parent: str  # another recipe's name, or "base"
    #: repo paths (files or directories) copied into the build context at the same relative path
    files: tuple[str, ...] = ()
    #: component -> paths under <home>/dist/<component>, copied to dist/<component>/<path>
    dists: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def dockerfile(self) -> Path:
        return RECIPES_DIR / f"{self.name}.Dockerfile"


_FLINK = ("site/pyflink/bin", "site/pyflink/lib", "site/pyflink/opt", "site/pyflink/plugins", "site/pyflink/conf")
#: In build order: a parent comes before its children.
RECIPES: tuple[Recipe, ...] = (
    Recipe("jre", "local/ioscale-jre:17", "base"),
    Recipe("kafka", "local/ioscale-kafka:4.3.1", "jre",
           files=("stack/docker/local/kafka-entrypoint.sh", "stack/kafka/log4j2.properties"), dists={"kafka": ("lib",)}),
    Recipe("flink", "local/ioscale-flink:2.2.1", "jre",
           files=("stack/docker/local/flink-entrypoint.sh",), dists={"flink": _FLINK}),
    Recipe("maven", "local/ioscale-maven:3.8", "base"),
    Recipe("ioscale", "local/ioscale-tools:1", "base",
           files=("ingest/pyproject.toml", "ingest/requirements.lock", "ingest/src", "schema", "sql", "superset",
                  "stream-jobs/pom.xml", "stack")),
    Recipe("registry", "local/ioscale-registry:1", "ioscale"),
    Recipe("clickhouse", "local/ioscale-clickhouse:26.9", "ioscale",
           files=("ingest/requirements-stack.lock", "stack/clickhouse/wait_for_space.c",
                  "stack/docker/local/clickhouse-entrypoint.py")),
    Recipe("postgres", "local/ioscale-postgres:15", "base", files=("stack/docker/local/postgres-entrypoint.sh",)),
    Recipe("superset", "local/ioscale-superset:6.1.0", "base",
           files=("stack/superset/requirements.lock", "stack/superset/superset_config.py",
                  "stack/superset/import_bundle.py")),
)
BY_NAME = {r.name: r for r in RECIPES}


# -- pure helpers (unit-tested) -----------------------------------------------------------------------------
def debian_sources(texts: list[str]) -> list[tuple[str, list[str], list[str]]]:
    """(URI, suites, components) of every Debian entry in apt source files (deb822 ``.sources`` or one-line
    ``.list``), in order. Only plain ``deb`` entries for the bookworm suites count."""
    out = []
    for text in texts:
        for stanza in re.split(r"\n\s*\n", text):
            fields = {}
            for line in stanza.splitlines():
                m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
                if m and not line.startswith("#"):
                    fields[m.group(1).lower()] = m.group(2).split()
            if fields.get("uris") and "deb" in fields.get("types", []) and fields.get("enabled", ["yes"])[0] != "no":
                out += [(u, fields.get("suites", []), fields.get("components", [])) for u in fields["uris"]]
        for line in text.splitlines():
            m = re.match(r"^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)$", line)
            if m:
                out.append((m.group(1), [m.group(2)], m.group(3).split()))
    return [(u, s, c) for u, s, c in out if any(x == SUITE or x.startswith(SUITE + "-") for x in s)]


def host_mirror(texts: list[str]) -> str:
    """The mirror that serves the plain ``bookworm`` suite in the host's apt sources."""
    for uri, suites, _ in debian_sources(texts):
        if SUITE in suites:
            return uri
    raise StackError("images", f"the host's apt sources name no mirror for {SUITE}",
                     hint="add a Debian bookworm entry to /etc/apt/sources.list.d/, or build on a Debian host")


def rootfs_sources(texts: list[str]) -> str:
    """The image's /etc/apt/sources.list: the host's Debian bookworm entries (updates and security too)."""
    return "".join(f"deb {u} {' '.join(s)} {' '.join(c)}\n" for u, s, c in debian_sources(texts))


def read_host_sources(etc_apt: Path = Path("/etc/apt")) -> list[str]:
    files = [etc_apt / "sources.list"] if (etc_apt / "sources.list").exists() else []
    files += sorted(p for p in (etc_apt / "sources.list.d").glob("*") if p.suffix in (".list", ".sources"))
    return [p.read_text() for p in files]


def base_recipe_hash(sources: list[str], ca_bundle: bytes) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"suite": SUITE, "variant": "minbase", "packages": BASE_PACKAGES,
                         "mirror": host_mirror(sources), "sources": rootfs_sources(sources)}).encode())
    h.update(hashlib.sha256(ca_bundle).digest())
    return h.hexdigest()[:16]


def context_entries(recipe: Recipe, repo: Path, dist: Path) -> list[tuple[Path, str]]:
    """(source file, path in the build context) for every file a recipe copies, sorted by context path."""
    out: list[tuple[Path, str]] = []

    def walk(src: Path, dest: str) -> None:
        if src.is_dir():
            for p in sorted(src.rglob("*")):
                rel = f"{dest}/{p.relative_to(src).as_posix()}"
                if p.is_file() and not _SKIP.search(rel):
                    out.append((p, rel))
        elif src.is_file():
            out.append((src, dest))
        else:
            raise StackError("images", f"{recipe.name}: {src} is missing",
                             hint="run `ioscale stack up` once so <home>/dist holds the pinned artifacts"
                             if str(src).startswith(str(dist)) else "check the recipe's file list")

    for f in recipe.files:
        walk(repo / f, f)
    for comp, subs in recipe.dists.items():
        for sub in subs:
            walk(dist / comp / sub, f"dist/{comp}/{sub}")
    return sorted(out, key=lambda e: e[1])


def recipe_hash(recipe: Recipe, dockerfile: str, parent_hash: str, entries: list[tuple[Path, str]],
                dist: Path) -> str:
    """Hash of what decides an image's content. Repo files count by content; artifacts from <home>/dist by their
    install marker (the pinned version) and their file list with sizes (a half-copied dist is not the same)."""
    h = hashlib.sha256()
    h.update(dockerfile.encode())
    h.update(parent_hash.encode())
    for comp in sorted(recipe.dists):
        marker = dist / comp / ".installed.json"
        h.update(json.loads(marker.read_text()).get("version", "").encode() if marker.exists() else b"?")
    for src, rel in entries:
        h.update(rel.encode())
        if rel.startswith("dist/"):
            h.update(str(src.stat().st_size).encode())
        else:
            h.update(hashlib.sha256(src.read_bytes()).digest())
    return h.hexdigest()[:16]


# -- engine calls ---------------------------------------------------------------------------------------------
class Builder:
    def __init__(self, settings: StackSettings, ui: Progress | None = None):
        self.settings = settings
        self.engine = Engine(settings)
        self.ui = ui or Progress()
        self.hashes: dict[str, str] = {}
        self.log_file = settings.log_dir / "docker-images.log"
        self.work = self.engine.root / "build"

    def _docker(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["docker", *args], env=self.engine.env(), capture_output=True, text=True, **kw)

    def label(self, tag: str) -> str | None:
        r = self._docker("image", "inspect", "--format", f'{{{{index .Config.Labels "{RECIPE_LABEL}"}}}}', tag)
        value = r.stdout.strip() if r.returncode == 0 else ""
        return None if value in ("", "<no value>") else value

    def size_mb(self, tag: str) -> float:
        r = self._docker("image", "inspect", "--format", "{{.Size}}", tag)
        return int(r.stdout.strip()) / 1e6 if r.returncode == 0 else 0.0

    def build_base(self) -> bool:
        """Build local/debian:bookworm unless it exists with the same recipe; True if built."""
        sources = read_host_sources()
        local_cas = sorted(HOST_LOCAL_CAS.rglob("*.crt")) if HOST_LOCAL_CAS.is_dir() else []
        want = base_recipe_hash(sources, HOST_CA_BUNDLE.read_bytes() + b"".join(p.read_bytes() for p in local_cas))
        self.hashes["base"] = want
        if self.label(BASE_IMAGE) == want:
            self.ui.done(f"{BASE_IMAGE}: up to date (recipe {want})")
            return False
        if not shutil.which("debootstrap"):
            raise StackError("images", "debootstrap is not installed", hint="run scripts/docker-engine.sh install")
        rootfs = self.work / "rootfs"
        shutil.rmtree(rootfs, ignore_errors=True)
        rootfs.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        run_logged("images", f"debootstrap --variant=minbase {SUITE} (host's mirror)",
                   ["nice", "-n", "10", "debootstrap", "--variant=minbase", f"--include={','.join(BASE_PACKAGES)}",
                    SUITE, rootfs, host_mirror(sources)],
                   self.log_file, self.ui, timeout_s=1800,
                   hint="check the mirror in the host's apt sources answers, then re-run")
        for ca in local_cas:
            dest = rootfs / "usr/local/share/ca-certificates" / ca.relative_to(HOST_LOCAL_CAS)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ca, dest)
        if local_cas:
            run_logged("images", "update-ca-certificates in the root filesystem",
                       ["chroot", rootfs, "update-ca-certificates"], self.log_file, self.ui, timeout_s=300)
        shutil.copyfile(HOST_CA_BUNDLE, rootfs / "etc/ssl/certs/ca-certificates.crt")
        (rootfs / "etc/apt/sources.list").write_text(rootfs_sources(sources))
        (rootfs / "etc/apt/apt.conf.d/90ioscale").write_text(
            'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n')
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for p in (rootfs / cache).glob("*"):
                if p.is_file():
                    p.unlink()
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        imp = subprocess.run(["docker", "import", "--change", f"LABEL {RECIPE_LABEL}={want}",
                              "--change", f"LABEL {LABEL}=ioscale", "--change", "ENV LANG=C.UTF-8",
                              "--change", 'CMD ["/bin/bash"]', "-", BASE_IMAGE],
                             stdin=tar.stdout, env=self.engine.env(), capture_output=True, text=True)
        tar.stdout.close()
        if tar.wait() != 0 or imp.returncode != 0:
            raise StackError("images", f"importing the root filesystem failed: {imp.stderr.strip()}",
                             hint="check that the engine runs: scripts/docker-engine.sh status")
        shutil.rmtree(rootfs, ignore_errors=True)
        self.ui.done(f"{BASE_IMAGE}: built in {time.monotonic() - t0:.0f}s, {self.size_mb(BASE_IMAGE):.0f} MB")
        return True

    def stage(self, entries: list[tuple[Path, str]], dockerfile: str, ctx: Path) -> None:
        shutil.rmtree(ctx, ignore_errors=True)
        ctx.mkdir(parents=True)
        (ctx / "Dockerfile").write_text(dockerfile)
        for src, rel in entries:
            dest = ctx / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:  # hard links: staging the Flink distribution costs no copy
                os.link(src, dest)
            except OSError:
                shutil.copy2(src, dest)

    def build(self, recipe: Recipe) -> bool:
        repo, dist = self.settings.repo, self.settings.dist_dir
        dockerfile = (repo / recipe.dockerfile).read_text()
        entries = context_entries(recipe, repo, dist)
        want = recipe_hash(recipe, dockerfile, self.hashes[recipe.parent], entries, dist)
        self.hashes[recipe.name] = want
        if self.label(recipe.tag) == want:
            self.ui.done(f"{recipe.tag}: up to date (recipe {want})")
            return False
        ctx = self.work / recipe.name
        self.stage(entries, dockerfile, ctx)
        t0 = time.monotonic()
        run_logged("images", f"building {recipe.tag}",
                   ["nice", "-n", "10", "docker", "build", "--label", f"{RECIPE_LABEL}={want}",
                    "--label", f"{LABEL}=ioscale", "-t", recipe.tag, str(ctx)],
                   self.log_file, self.ui, env={"DOCKER_HOST": self.engine.host}, timeout_s=3600,
                   hint=f"see the log; fix {recipe.dockerfile} and re-run (finished layers are cached)")
        shutil.rmtree(ctx, ignore_errors=True)
        self.ui.done(f"{recipe.tag}: built in {time.monotonic() - t0:.0f}s, {self.size_mb(recipe.tag):.0f} MB")
        return True

    def build_all(self, names: list[str] | None = None) -> list[str]:
        """Build the named images (all by default) and the parents they need, in order; returns what was built."""
        wanted = set(names or BY_NAME)
        unknown = wanted - set(BY_NAME)
        if unknown:
            raise StackError("images", f"unknown image(s) {', '.join(sorted(unknown))}",
                             hint=f"choose from {', '.join(BY_NAME)}")
        for name in list(wanted):
            while BY_NAME[name].parent != "base":
                name = BY_NAME[name].parent
                wanted.add(name)
        built = ["base"] if self.build_base() else []
        for recipe in RECIPES:
            if recipe.name in wanted and self.build(recipe):
                built.append(recipe.name)
        return built
