"""Server processes ioscale ships: the schema registry (``python -m ioscale.services.registry``), the ClickHouse
server on the embedded engine (``python -m ioscale.services.clickhouse_server``) and the alert notifier that
``ioscale alerts`` runs. The local stack (``ioscale.stack``) starts the first two as processes."""
