"""The local stack: installs and runs Kafka, the schema registry, ClickHouse, Flink and Superset on 127.0.0.1."""
