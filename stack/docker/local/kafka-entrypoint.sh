#!/bin/bash
# Runs the broker the way the official apache/kafka image does: every KAFKA_* variable (but the JVM ones) is a
# server property (KAFKA_LOG_DIRS -> log.dirs; "__" stands for "_", "___" for "-"), storage is formatted on first
# start, then the JVM replaces this shell. Its output also goes to /tmp/kafka-server.log: the local image has no
# Kafka command-line tools, and the health check looks there for "Kafka Server started".
set -euo pipefail
conf=/opt/kafka/config/server.properties
: > "$conf"
for var in $(compgen -e); do
  case "$var" in
    KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_LOG4J_OPTS|KAFKA_GC_LOG_OPTS) continue ;;
    KAFKA_*) ;;
    *) continue ;;
  esac
  key="${var#KAFKA_}"; key="${key,,}"; key="${key//___/-}"; key="${key//__/@}"; key="${key//_/.}"; key="${key//@/_}"
  printf '%s=%s\n' "$key" "${!var}" >> "$conf"
done
java=(java -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties -cp '/opt/kafka/libs/*')
logdir="$(sed -n 's/^log\.dirs=//p' "$conf" | cut -d, -f1)"
if [[ -n "$logdir" && ! -f "$logdir/meta.properties" ]]; then
  cluster="${CLUSTER_ID:-$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)}"
  "${java[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$conf"
fi
: > /tmp/kafka-server.log
exec > >(tee -a /tmp/kafka-server.log) 2>&1
# shellcheck disable=SC2086  # the options are word lists
exec "${java[@]}" $KAFKA_HEAP_OPTS ${KAFKA_OPTS:-} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
  kafka.Kafka "$conf"
