"""What the live tests of the analytics job open on the stack: Flink, with the job checked to be running, a
ClickHouse reader, and a producer that sends at once (the tests stamp samples with the time they are sent)."""

from __future__ import annotations

from ioscale.stack import clickhouse
from ioscale.stack.component import StackContext
from ioscale.stack.flink import ANALYTICS_JOB, FlinkComponent
from ioscale.stack.progress import SilentProgress
from ioscale.wire.producer import TelemetryProducer


def check_analytics_running(stack) -> FlinkComponent:
    """The stack's Flink; fails the test unless the analytics job runs there."""
    flink = FlinkComponent(StackContext(stack.settings, stack.secrets, SilentProgress()))
    assert flink.jobs().get(ANALYTICS_JOB) == "RUNNING", "`ioscale stack up` should have submitted the job"
    return flink


def reader(stack):
    return clickhouse.client(stack.settings, stack.secrets, role="reader", database="ioscale")


def live_producer(stack) -> TelemetryProducer:
    return TelemetryProducer(stack.kafka_bootstrap, stack.registry_url, {"linger.ms": 5})
