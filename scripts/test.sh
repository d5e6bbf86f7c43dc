#!/usr/bin/env bash
# The whole test suite: Java unit/MiniCluster tests, Python unit tests, then integration tests
# against the real local stack (started by the `stack` fixture, or reused if already running).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export IOSCALE_HOME="${IOSCALE_HOME:-$repo/.ioscale}"
scripts/bootstrap.sh --test
echo "== stream-jobs: mvn verify" >&2
mvn -B -q -f stream-jobs/pom.xml verify
echo "== pytest" >&2
exec "$IOSCALE_HOME/venv/bin/pytest" "$@"
