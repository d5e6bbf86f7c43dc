#!/bin/bash
# `jobmanager` or `taskmanager`: writes conf/config.yaml (the image's flat base, the container defaults the official
# image sets, then FLINK_PROPERTIES; a later key wins) and runs that role in the foreground. Anything else is run as is.
set -euo pipefail
role="${1:-}"
if [[ "$role" != jobmanager && "$role" != taskmanager ]]; then
  exec "$@"
fi
conf=/opt/flink/conf
{
  cat "$conf/base.yaml"
  printf '%s\n' "jobmanager.rpc.address: ${HOSTNAME}" "rest.bind-address: 0.0.0.0" "jobmanager.bind-host: 0.0.0.0" \
    "taskmanager.bind-host: 0.0.0.0" "taskmanager.host: $(hostname -i | cut -d' ' -f1)" "blob.server.port: 6124" \
    "query.server.port: 6125"
  printf '%s\n' "${FLINK_PROPERTIES:-}"
} | awk -F': ' 'NF >= 2 { k = $1; if (!(k in v)) order[++n] = k; v[k] = $0 } END { for (i = 1; i <= n; i++) print v[order[i]] }' \
  > "$conf/config.yaml.tmp"
mv "$conf/config.yaml.tmp" "$conf/config.yaml"
exec "/opt/flink/bin/$role.sh" start-foreground
