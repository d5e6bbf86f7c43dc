"""Kafka 4.3.1, single-node KRaft (broker + controller in one JVM), jars resolved by Maven."""

from __future__ import annotations

import base64
import os
import shutil
import uuid
from pathlib import Path

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.stack.commands import run_logged
from ioscale.stack.component import Component, Endpoint, Health
from ioscale.stack.process import ProcessSpec, port_in_use

KAFKA_HEAP = "-Xms256m -Xmx768m"


def java_bin() -> str:
    home = os.environ.get("JAVA_HOME")
    java = Path(home) / "bin" / "java" if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise StackError("kafka", "no java found", hint="install a Java 17 JDK or set JAVA_HOME")
    return str(java)


def render_server_properties(settings, log_dirs: Path, node_id: int = 1) -> str:
    host, port, ctl = settings.host, settings.port("kafka"), settings.port("kafka_controller")
    lines = {
        "process.roles": "broker,controller",
        "node.id": str(node_id),
        "controller.quorum.voters": f"{node_id}@{host}:{ctl}",
        "listeners": f"PLAINTEXT://{host}:{port},CONTROLLER://{host}:{ctl}",
        "advertised.listeners": f"PLAINTEXT://{host}:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(log_dirs),
        "num.partitions": "3",
        # Single node: every internal topic has one replica.
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        # Topics are created by the launcher with their layout; a typo'd topic name must fail, not appear.
        "auto.create.topics.enable": "false",
        "log.retention.hours": "168",
        "log.segment.bytes": str(256 * 1024 * 1024),
    }
    return "".join(f"{k}={v}\n" for k, v in lines.items())


class KafkaComponent(Component):
    name = "kafka"
    install_version = "kafka_2.13-4.3.1+log4j-2.24.3"

    lib_dir = Subpath("dist", "lib")
    log_dirs = Subpath("data", "kraft-logs")

    def install(self) -> None:
        if self.is_installed():
            return
        if not shutil.which("mvn"):
            raise StackError("kafka", "Maven (mvn) not found", hint="install Maven 3.8+ (apt-get install maven)")
        shutil.rmtree(self.lib_dir, ignore_errors=True)
        run_logged(
            "kafka",
            "resolving Kafka 4.3.1 jars with Maven",
            ["mvn", "-B", "-q", "-f", self.settings.repo / "stack/kafka/pom.xml", "dependency:copy-dependencies",
             f"-DoutputDirectory={self.lib_dir}", "-DincludeScope=runtime"],
            self.install_log,
            self.ui,
            timeout_s=900,
        )
        self.mark_installed()

    def prepare(self) -> None:
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        props = self.conf_dir / "server.properties"
        props.write_text(render_server_properties(self.settings, self.log_dirs))
        shutil.copyfile(self.settings.repo / "stack/kafka/log4j2.properties", self.conf_dir / "log4j2.properties")
        # Format storage exactly once: a formatted log dir holds meta.properties; reformatting would lose data.
        if not (self.log_dirs / "meta.properties").exists():
            cluster_id_file = self.data / "cluster-id"
            if not cluster_id_file.exists():
                cluster_id_file.write_text(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))
            run_logged(
                "kafka",
                "formatting KRaft storage (first start only)",
                [java_bin(), "-cp", f"{self.lib_dir}/*", f"-Dlog4j2.configurationFile={self.conf_dir / 'log4j2.properties'}",
                 "kafka.tools.StorageTool", "format", "-t", cluster_id_file.read_text().strip(), "-c", props],
                self.install_log,
                self.ui,
                timeout_s=120,
            )

    def processes(self) -> list[ProcessSpec]:
        return [
            self.spec(
                None,
                [java_bin(), *KAFKA_HEAP.split(), "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                 "-Djava.awt.headless=true", f"-Dlog4j2.configurationFile={self.conf_dir / 'log4j2.properties'}",
                 "-cp", f"{self.lib_dir}/*", "kafka.Kafka", str(self.conf_dir / "server.properties")],
                ports=(self.settings.port("kafka"), self.settings.port("kafka_controller")),
                stop_timeout_s=30.0,
            )
        ]

    def _admin(self):
        if getattr(self, "_admin_client", None) is None:
            from confluent_kafka.admin import AdminClient

            # log_level 0: librdkafka would print a line per refused connect while the broker starts.
            self._admin_client = AdminClient(
                {"bootstrap.servers": self.settings.kafka_bootstrap, "socket.timeout.ms": 3000, "log_level": 0}
            )
        return self._admin_client

    def _broker_answers(self) -> bool:
        # The port accepts connections seconds before the broker serves metadata: ask for metadata.
        if not port_in_use(self.settings.host, self.settings.port("kafka")):
            return False
        return len(self._admin().list_topics(timeout=3).brokers) >= 1

    def wait_ready(self, timeout_s: float) -> None:
        self.wait_for("broker metadata", self._broker_answers, timeout_s)

    def health(self) -> Health:
        try:
            if not port_in_use(self.settings.host, self.settings.port("kafka")):
                return Health(False, "port closed")
            md = self._admin().list_topics(timeout=3)
        except Exception as e:
            return Health(False, f"not answering ({e})")
        ours = sorted(t for t in md.topics if t.startswith("ioscale."))
        return Health(True, f"{len(md.brokers)} broker, {len(ours)} ioscale topics")

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("Kafka bootstrap", self.settings.kafka_bootstrap)]
