# Superset's metadata database for compose: Debian bookworm's PostgreSQL 15, with the official image's
# POSTGRES_DB / POSTGRES_USER / POSTGRES_PASSWORD set up on first start.
FROM local/debian:bookworm
RUN apt-get update -qq && apt-get install -y -qq postgresql-15 >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 /var/lib/postgresql/data
COPY stack/docker/local/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
