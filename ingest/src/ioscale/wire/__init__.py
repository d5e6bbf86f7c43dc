"""The wire layer: what travels through Kafka and how it is encoded.

Topics (``topics``), their Avro schemas and registration (``schemas``), the record types (``records``), column
blocks (``columns``), the Avro encoders (``avro_wire``, vectorised in ``avro_fast``), the one producer
(``producer``) and publishing of import results (``publish``). It depends only on the base modules
(``ioscale.errors``, ``ioscale.histogram``, ``ioscale.paths``): a collector host needs nothing of the stack.
"""
