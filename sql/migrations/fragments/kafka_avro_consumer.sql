    kafka_format = 'AvroConfluent',
    format_avro_schema_registry_url = '{{registry_url}}',
    kafka_num_consumers = 1,
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = 500
