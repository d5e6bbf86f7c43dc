# Superset 6.1.0 with the ClickHouse driver, and ioscale's configuration.
FROM apache/superset:6.1.0
USER root
RUN uv pip install --python /app/.venv/bin/python --no-cache clickhouse-connect==1.12.0 psycopg2-binary==2.9.10
COPY stack/superset/superset_config.py stack/superset/import_bundle.py /app/ioscale/
USER superset
