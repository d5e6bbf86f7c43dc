"""Everything that configures a running stack, the local one (``ioscale stack up``) or one run elsewhere
(``ioscale admin init`` for docker-compose): Kafka topics and Avro schemas, ClickHouse migrations and accounts,
the Flink jobs (submit, redeploy from savepoints, bounded replays), the Superset dashboards and alerts.

``launcher.Launcher`` is the stack's launcher with each service provisioned as it comes up: one subclass per
component of ``ioscale.stack`` adds its ``configure()`` (``kafka``, ``registry``, ``clickhouse``, ``flink``,
``superset``). ``external`` does the same work for services something else runs.
"""
