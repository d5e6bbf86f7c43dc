# Builds the stream-jobs jar in compose (stream-jobs-build): Debian's JDK 17 and Maven 3.8, as on the host.
FROM local/debian:bookworm
RUN apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
