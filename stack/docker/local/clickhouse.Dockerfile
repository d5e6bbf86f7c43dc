# ClickHouse 26.9 as the local stack runs it: chdb-core's engine (requirements-stack.lock) served by
# ioscale.services.clickhouse_server, configured from stack/clickhouse. User clickhouse (uid 101) as in the official image.
FROM local/ioscale-tools:1
COPY ingest/requirements-stack.lock ingest/requirements-stack.lock
RUN /opt/venv/bin/pip install -q --no-cache-dir --disable-pip-version-check -r ingest/requirements-stack.lock
COPY stack/clickhouse/wait_for_space.c /usr/local/src/wait_for_space.c
# The full-disk write guard the server loads (see that file); the compiler goes once it is built.
RUN apt-get update -qq && apt-get install -y -qq gcc libc6-dev >/dev/null \
    && gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o /usr/local/lib/wait_for_space.so \
       /usr/local/src/wait_for_space.c -ldl \
    && apt-get purge -y -qq gcc libc6-dev >/dev/null && apt-get autoremove -y -qq >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY stack/docker/local/clickhouse-entrypoint.py /usr/local/bin/clickhouse-entrypoint.py
RUN useradd --system --uid 101 --home-dir /var/lib/clickhouse clickhouse \
    && mkdir -p /var/lib/clickhouse && chown clickhouse /var/lib/clickhouse
USER clickhouse
EXPOSE 8123 9000
ENTRYPOINT ["python", "/usr/local/bin/clickhouse-entrypoint.py"]
