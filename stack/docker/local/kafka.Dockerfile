# Kafka 4.3.1 (single-node KRaft), from the jars `ioscale stack up` resolved into <home>/dist/kafka/lib (the local
# stack's pin, stack/kafka/pom.xml). Configured like the official image: KAFKA_FOO_BAR=x becomes foo.bar=x.
FROM local/ioscale-jre:17
RUN useradd --system --uid 1000 --home-dir /opt/kafka --shell /usr/sbin/nologin appuser \
    && mkdir -p /opt/kafka/config /var/lib/kafka/data && chown appuser /opt/kafka/config /var/lib/kafka/data
COPY dist/kafka/lib /opt/kafka/libs
COPY stack/kafka/log4j2.properties /opt/kafka/config/log4j2.properties
COPY stack/docker/local/kafka-entrypoint.sh /usr/local/bin/kafka-entrypoint.sh
USER appuser
ENV KAFKA_HEAP_OPTS="-Xms256m -Xmx768m"
EXPOSE 9092
ENTRYPOINT ["/usr/local/bin/kafka-entrypoint.sh"]
