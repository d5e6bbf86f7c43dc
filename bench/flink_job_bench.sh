#!/usr/bin/env bash
# Throughput of the Flink analytics job in isolation (MiniCluster, generated IoSamples, no Kafka/ClickHouse).
# Usage: bench/flink_job_bench.sh [--samples N] [--sources N] [--buckets N] [--parallelism N] [--decode]
# Prints samples/s and samples per CPU-second; bench/flink_job_bench.md says what is measured and what was seen here.
set -euo pipefail
cd "$(dirname "$0")/../stream-jobs"
mvn -B -q test-compile
cp_file=target/bench-classpath.txt
mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >/dev/null
# The same module opens the tests and the cluster use (pom.xml flink.test.jvm.opens).
opens=$(sed -n 's:.*<flink.test.jvm.opens>\(.*\)</flink.test.jvm.opens>.*:\1:p' pom.xml)
# shellcheck disable=SC2086
exec java -Xmx1g $opens -cp "target/classes:target/test-classes:$(cat "$cp_file")" \
    io.ioscale.jobs.AnalyticsJobBench "$@" 2> >(grep -v -e ' WARN ' -e '^SLF4J' >&2)
