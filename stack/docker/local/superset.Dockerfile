# Superset 6.1.0 from the local stack's lock (stack/superset/requirements.lock: Superset, the ClickHouse driver)
# plus the PostgreSQL driver for compose's metadata database; laid out like the official image (/app/.venv,
# user superset, ioscale's config at /app/ioscale/superset_config.py).
FROM local/debian:bookworm
RUN apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
    && useradd --uid 1000 --create-home --home-dir /app/superset_home superset
COPY stack/superset/requirements.lock /app/requirements.lock
RUN python3 -m venv /app/.venv && /app/.venv/bin/pip install -q --no-cache-dir --disable-pip-version-check \
    -r /app/requirements.lock psycopg2-binary==2.9.10
COPY stack/superset/superset_config.py stack/superset/import_bundle.py /app/ioscale/
ENV PATH=/app/.venv/bin:$PATH SUPERSET_HOME=/app/superset_home TZ=UTC
USER superset
WORKDIR /app
EXPOSE 8088
# As the local stack runs it (ioscale.stack.superset), bound to the container's interfaces.
CMD ["gunicorn", "--bind", "0.0.0.0:8088", "--worker-class", "gthread", "--workers", "2", "--threads", "8", \
     "--timeout", "120", "--graceful-timeout", "10", "--limit-request-line", "0", "--limit-request-field_size", "0", \
     "--no-control-socket", "superset.app:create_app()"]
