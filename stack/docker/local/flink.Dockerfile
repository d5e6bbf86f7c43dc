# Flink 2.2.1, the distribution `ioscale stack up` installed into <home>/dist/flink (the apache-flink wheels' FLINK_HOME),
# laid out like the official image: /opt/flink, user flink (uid 9999), `jobmanager` / `taskmanager` commands and
# FLINK_PROPERTIES (one "key: value" a line) added to the configuration.
FROM local/ioscale-jre:17
# uid and gid 9999 as in the official image: compose's flink-job-submit runs as 9999:9999 and shares flink-data.
RUN groupadd --system --gid 9999 flink \
    && useradd --system --uid 9999 --gid flink --home-dir /opt/flink --shell /bin/bash flink
COPY dist/flink/site/pyflink /opt/flink
COPY stack/docker/local/flink-entrypoint.sh /docker-entrypoint.sh
# The distribution's config.yaml is nested; the entrypoint merges flat keys, so start from a flat one that keeps
# its Java 17 module options (needed to start at all).
RUN printf 'env.java.opts.all: %s\n' "$(sed -n 's/^ *all: //p' /opt/flink/conf/config.yaml)" > /opt/flink/conf/base.yaml \
    && printf 'rest.address: localhost\n' >> /opt/flink/conf/base.yaml && cp /opt/flink/conf/base.yaml /opt/flink/conf/config.yaml \
    && mkdir -p /opt/flink/log && chown -R flink /opt/flink/conf /opt/flink/log && chmod +x /opt/flink/bin/*.sh /opt/flink/bin/flink
ENV FLINK_HOME=/opt/flink PATH=/opt/flink/bin:$PATH
USER flink
WORKDIR /opt/flink
EXPOSE 6123 8081
ENTRYPOINT ["/docker-entrypoint.sh"]
