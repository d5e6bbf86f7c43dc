# The ioscale CLI for docker-compose's one-shot init (topics, schemas, ClickHouse users and DDL, dashboard bundle).
# It talks to the ClickHouse service over HTTP: requirements.lock without the `stack` extra's embedded engine.
FROM python:3.11.11-slim-bookworm
WORKDIR /app
COPY ingest/requirements.lock ingest/requirements.lock
RUN pip install --no-cache-dir -r ingest/requirements.lock
COPY ingest ingest
COPY schema schema
COPY sql sql
COPY superset superset
COPY stream-jobs/pom.xml stream-jobs/pom.xml
COPY stack stack
RUN pip install --no-cache-dir --no-deps -e ingest
ENV IOSCALE_REPO=/app IOSCALE_HOME=/tmp/ioscale
ENTRYPOINT ["ioscale"]
