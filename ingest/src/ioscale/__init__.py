"""ioscale: performance-telemetry analytics for virtual-machine I/O scalability testing."""

__version__ = "0.1.0"
