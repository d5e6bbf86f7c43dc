"""The local stack: installs, runs and health-checks Kafka, the schema registry, ClickHouse, Flink and Superset on
127.0.0.1. What a running service is then given (topics, schemas, tables, jobs, dashboards) is ioscale.provision's."""
