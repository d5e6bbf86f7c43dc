"""ioscale: performance-telemetry analytics for virtual-machine I/O scalability testing.

Packages by role, each importing only those listed before it (tests/unit/test_layers.py checks):

    errors, histogram, paths   base: error types and exit statuses, the latency histogram rule, the checkout
    wire                       what travels through Kafka: topics, schemas, records, column blocks, Avro, producer
    importers, collectors, simulator   sources of records: result files, live counters and tools, simulated fleets
    services                   processes ioscale ships: schema registry, ClickHouse server, alert notifier
    stack                      the local stack: install, run and health-check each service
    query                      the SQL library (sql/queries): parameters, execution, output
    report                     lab reports (HTML, matplotlib figures) and the regression gate, from query rows
    provision                  configure a running stack: topics, schemas, migrations, Flink jobs, dashboards
    cli                        the `ioscale` commands
"""

__version__ = "0.1.0"
