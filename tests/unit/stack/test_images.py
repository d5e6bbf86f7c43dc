"""Image recipes: the base's mirror comes from the host's apt sources, recipes chain to their parents, and the
recipe hash (the cache key) changes exactly when what goes into an image changes."""

import json
from pathlib import Path

import pytest

from ioscale.errors import StackError
from ioscale.stack.images import (BASE_IMAGE, BY_NAME, RECIPES, Recipe, base_recipe_hash, context_entries,
                                  debian_sources, host_mirror, recipe_hash, rootfs_sources)

REPO = Path(__file__).resolve().parents[3]
# A Debian 12 host's /etc/apt/sources.list.d/debian.sources (deb822), as this machine has it.
DEB822 = """Types: deb
# (a comment line, as apt allows)
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
# (another comment)
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
# Another source in the same directory that is not Debian's archive, and a disabled one.
OTHER = """Types: deb
URIs: https://apt.example/node_20.x
Suites: nodistro
Components: main

Types: deb-src
URIs: http://mirror.example/debian
Suites: bookworm
Components: main
"""
ONE_LINE = "deb [arch=amd64] http://old.example/debian bookworm main contrib\n# deb http://x/debian bookworm main\n"


def test_mirror_and_image_sources_come_from_the_hosts_debian_entries():
    assert host_mirror([OTHER, DEB822]) == "http://mirror.example/debian"
    assert debian_sources([DEB822, OTHER]) == [
        ("http://mirror.example/debian", ["bookworm", "bookworm-updates"], ["main"]),
        ("http://mirror.example/debian-security", ["bookworm-security"], ["main"])]
    assert rootfs_sources([DEB822]) == ("deb http://mirror.example/debian bookworm bookworm-updates main\n"
                                       "deb http://mirror.example/debian-security bookworm-security main\n")
    assert host_mirror([ONE_LINE]) == "http://old.example/debian"


def test_a_host_without_a_bookworm_mirror_is_told_what_to_do():
    with pytest.raises(StackError) as e:
        host_mirror([OTHER])
    assert "no mirror for bookworm" in str(e.value) and "sources.list.d" in e.value.hint


def test_base_hash_follows_mirror_and_ca_bundle():
    h = base_recipe_hash([DEB822], b"ca-1")
    assert h == base_recipe_hash([DEB822], b"ca-1") and len(h) == 16
    assert h != base_recipe_hash([DEB822], b"ca-2")
    assert h != base_recipe_hash([DEB822.replace("mirror.example", "other.example")], b"ca-1")


def test_every_recipe_builds_from_its_parent_and_parents_come_first():
    seen = {"base"}
    for r in RECIPES:
        assert r.parent in seen, f"{r.name} is listed before its parent {r.parent}"
        seen.add(r.name)
        first = next(l for l in (REPO / r.dockerfile).read_text().splitlines() if l.startswith("FROM "))
        parent_tag = BASE_IMAGE if r.parent == "base" else BY_NAME[r.parent].tag
        assert first == f"FROM {parent_tag}", r.name
        for f in r.files:
            assert (REPO / f).exists(), f"{r.name} copies {f}, which is missing"


def _dist(tmp_path: Path, version: str, lib_size: int) -> Path:
    dist = tmp_path / "dist"
    (dist / "kafka" / "lib").mkdir(parents=True, exist_ok=True)
    (dist / "kafka" / "lib" / "kafka_2.13-4.3.1.jar").write_bytes(b"x" * lib_size)
    (dist / "kafka" / ".installed.json").write_text(json.dumps({"version": version, "at": 1}))
    return dist


def test_recipe_hash_changes_with_dockerfile_parent_repo_files_and_pinned_artifacts(tmp_path):
    repo = tmp_path / "repo"
    (repo / "stack/kafka/__pycache__").mkdir(parents=True)
    (repo / "stack/kafka/log4j2.properties").write_text("status = warn\n")
    (repo / "stack/kafka/__pycache__/x.pyc").write_bytes(b"\0")
    recipe = Recipe("kafka", "local/k:1", "jre", files=("stack/kafka",), dists={"kafka": ("lib",)})
    dist = _dist(tmp_path, "kafka_2.13-4.3.1", 10)
    entries = context_entries(recipe, repo, dist)
    assert [rel for _, rel in entries] == ["dist/kafka/lib/kafka_2.13-4.3.1.jar", "stack/kafka/log4j2.properties"]
    h = recipe_hash(recipe, "FROM a", "p1", entries, dist)
    assert h == recipe_hash(recipe, "FROM a", "p1", context_entries(recipe, repo, dist), dist)
    assert h != recipe_hash(recipe, "FROM b", "p1", entries, dist)
    assert h != recipe_hash(recipe, "FROM a", "p2", entries, dist)
    (repo / "stack/kafka/log4j2.properties").write_text("status = info\n")
    assert h != recipe_hash(recipe, "FROM a", "p1", context_entries(recipe, repo, dist), dist)
    (repo / "stack/kafka/log4j2.properties").write_text("status = warn\n")
    _dist(tmp_path, "kafka_2.13-4.3.2", 10)
    assert h != recipe_hash(recipe, "FROM a", "p1", context_entries(recipe, repo, dist), dist)
    _dist(tmp_path, "kafka_2.13-4.3.1", 9)  # same pin, a half-copied jar
    assert h != recipe_hash(recipe, "FROM a", "p1", context_entries(recipe, repo, dist), dist)


def test_missing_artifacts_say_to_install_the_local_stack_once(tmp_path):
    recipe = Recipe("kafka", "local/k:1", "jre", dists={"kafka": ("lib",)})
    with pytest.raises(StackError) as e:
        context_entries(recipe, tmp_path, tmp_path / "dist")
    assert "ioscale stack up" in e.value.hint


def test_every_file_a_dockerfile_copies_is_in_its_recipes_build_context(tmp_path):
    # Regression: clickhouse.Dockerfile copied stack/clickhouse/wait_for_space.c, which its recipe did not list, so
    # the build context lacked it and the image failed to build ("COPY failed: file not found").
    dist = tmp_path / "dist"
    for recipe in RECIPES:
        # the repo files as the build puts them; the artifacts from <home>/dist by their declared paths
        context = {rel for _, rel in context_entries(Recipe(recipe.name, recipe.tag, recipe.parent, recipe.files),
                                                     REPO, dist)}
        context |= {f"dist/{comp}/{sub}" for comp, subs in recipe.dists.items() for sub in subs}
        for line in (REPO / recipe.dockerfile).read_text().splitlines():
            words = line.split()
            if not words or words[0] != "COPY" or any(w.startswith("--from") for w in words):
                continue
            for src in words[1:-1]:
                if src.startswith("--"):
                    continue
                src = src.rstrip("/")
                assert src in context or any(c.startswith(src + "/") for c in context), \
                    f"{recipe.dockerfile} copies {src}, which recipe {recipe.name!r} does not put in its context"
