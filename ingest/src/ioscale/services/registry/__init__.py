"""A small Confluent-compatible Avro schema registry (no registry server installs from the package
registries this stack uses, so ioscale ships its own).

Clients that work against it: confluent-kafka's ``SchemaRegistryClient``, ClickHouse's
``AvroConfluent`` format (``GET /schemas/ids/{id}``), ioscale's own producers and Flink jobs.
Schemas live in a compacted ``_schemas`` topic in Confluent's record format.

Modules: ``canonical`` (parse, validate, canonical form), ``compat`` (Avro compatibility rules),
``store`` (state and its Kafka log), ``service`` (the operations), ``server`` (HTTP), ``__main__``.
"""
