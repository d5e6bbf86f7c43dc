#!/usr/bin/env bash
# Prepares a fresh machine for ioscale: Debian packages the tests need, and the Python 3.11 venv
# with the pinned dependencies. Safe to re-run: each step is skipped when already done.
#   scripts/bootstrap.sh          runtime only: ioscale with the `stack` extra (the ClickHouse engine)
#   scripts/bootstrap.sh --test   also what the test suite needs (fio, iperf3, a Docker engine, pytest)
# A host that only collects or imports needs no engine: pip install -r ingest/requirements.lock, then
# pip install --no-deps -e ingest.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${IOSCALE_HOME:-$repo/.ioscale}"
venv="$home/venv"
want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

say() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { printf '[bootstrap] error: %s\n' "$*" >&2; exit 1; }

# --- toolchains the machine must already have -------------------------------------------------
command -v java >/dev/null || die "Java 17 is required (apt-get install openjdk-17-jdk-headless)"
java -version 2>&1 | grep -q 'version "17' || say "warning: Java 17 expected, found: $(java -version 2>&1 | head -1)"
command -v mvn >/dev/null || die "Maven is required (apt-get install maven)"
py=""
for cand in python3.11 "$HOME/.pyenv/versions/3.11.7/bin/python3.11"; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 11)' 2>/dev/null; then
    py="$(command -v "$cand")"; break
  fi
done
[[ -n "$py" ]] || die "Python 3.11 is required (it runs the ingest tools, launcher and tests)"

# --- Debian packages for the tests -------------------------------------------------------------
apt_pkgs=()
if (( want_test )); then
  command -v fio >/dev/null || apt_pkgs+=(fio)
  # iperf3 for `ioscale run iperf3` and its tests; noninteractive keeps its debconf default: no daemon on 5201.
  command -v iperf3 >/dev/null || apt_pkgs+=(iperf3)
  # The container tests' engine (scripts/docker-engine.sh starts it under $IOSCALE_HOME/docker) and image base.
  command -v dockerd >/dev/null || apt_pkgs+=(docker.io)
  command -v iptables >/dev/null || apt_pkgs+=(iptables)
  command -v debootstrap >/dev/null || apt_pkgs+=(debootstrap)
  # The dashboard test drives Debian's chromium through playwright (no browser download).
  [[ -x /usr/bin/chromium ]] || apt_pkgs+=(chromium)
  # Fonts so screenshots render text (chromium's own dependency set is minimal without recommends).
  dpkg -s fonts-dejavu-core >/dev/null 2>&1 || apt_pkgs+=(fonts-dejavu-core)
fi
if (( ${#apt_pkgs[@]} )); then
  if [[ $(id -u) -ne 0 ]]; then
    die "missing Debian packages: ${apt_pkgs[*]} (run: sudo apt-get install ${apt_pkgs[*]})"
  fi
  say "installing Debian packages: ${apt_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null
fi

# --- Python venv -------------------------------------------------------------------------------
stamp="$venv/.ioscale-stamp"
# "stack-": venvs stamped before the engine became the `stack` extra reinstall (and record the extra).
locks=("$repo/ingest/requirements.lock" "$repo/ingest/requirements-stack.lock")
want_stamp="stack-$(cat "${locks[@]}" "$repo/ingest/pyproject.toml" | sha256sum | cut -c1-16)-$want_test"
if [[ ! -x "$venv/bin/python" ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]]; then
  say "creating Python venv in $venv (pinned dependencies, ~1 min on a fresh machine)"
  mkdir -p "$home"
  [[ -x "$venv/bin/python" ]] || "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "${locks[0]}" -r "${locks[1]}"
  extra="[stack]"; (( want_test )) && extra="[stack,test]"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -e "$repo/ingest$extra"
  echo "$want_stamp" > "$stamp"
fi
if (( want_test )); then
  # docker compose v2 (the container tests' and the compose file checks'): built once from its Go module.
  "$venv/bin/ioscale" docker engine install >&2
fi
say "ready: $venv/bin/ioscale"
