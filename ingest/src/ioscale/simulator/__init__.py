"""Fleet simulator: replays the published I/O scalability studies (and short demos) as telemetry.

    list_scenarios()                          -> the catalogue (scenarios.py documents each one)
    simulate(name, seed, mode, start_ms, speed) -> iterator of (topic, record), no Kafka involved
    run_simulation(name, producer, seed=..., realtime=..., progress=...) -> SimulationReport

Modules: model.py (queueing math), specs.py (what a scenario is made of), network.py (a step as a
queueing network), scenarios.py (the catalogue), engine.py (records), runner.py (pacing and sending).
"""

from ioscale.simulator.runner import (SimulationProgress, SimulationReport, make_engine, run_simulation,
                                      simulate)
from ioscale.simulator.scenarios import get as get_scenario
from ioscale.simulator.scenarios import list_scenarios

__all__ = ["SimulationProgress", "SimulationReport", "get_scenario", "list_scenarios", "make_engine",
           "run_simulation", "simulate"]
