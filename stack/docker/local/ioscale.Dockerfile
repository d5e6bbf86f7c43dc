# The ioscale tools (CLI, importers, `ioscale admin init`) on Debian's Python 3.11, with the pinned requirements.lock.
# The registry and ClickHouse images build on it.
FROM local/debian:bookworm
RUN apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb && python3 -m venv /opt/venv
WORKDIR /app
COPY ingest/requirements.lock ingest/requirements.lock
RUN /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check -r ingest/requirements.lock
COPY ingest ingest
COPY schema schema
COPY sql sql
COPY superset superset
COPY stream-jobs/pom.xml stream-jobs/pom.xml
COPY stack stack
RUN /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check --no-deps -e ingest
ENV PATH=/opt/venv/bin:$PATH IOSCALE_REPO=/app IOSCALE_HOME=/tmp/ioscale
ENTRYPOINT ["ioscale"]
