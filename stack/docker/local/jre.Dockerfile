# Java 17 runtime for the Kafka and Flink images: Debian's OpenJDK 17, the JDK the local stack runs on.
FROM local/debian:bookworm
RUN apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless procps >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
