# ClickHouse 26.9 as the local stack runs it: chdb-core's engine (requirements-stack.lock) served by
# ioscale.services.clickhouse_server, configured from stack/clickhouse. User clickhouse (uid 101) as in the official image.
FROM local/ioscale-tools:1
COPY ingest/requirements-stack.lock ingest/requirements-stack.lock
RUN /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check -r ingest/requirements-stack.lock
COPY stack/docker/local/clickhouse-entrypoint.py /usr/local/bin/clickhouse-entrypoint.py
RUN useradd --system --uid 101 --home-dir /var/lib/clickhouse clickhouse \
    && mkdir -p /var/lib/clickhouse && chown clickhouse /var/lib/clickhouse
USER clickhouse
EXPOSE 8123 9000
ENTRYPOINT ["python", "/usr/local/bin/clickhouse-entrypoint.py"]
