# The two commands a newcomer needs (README.md):
#   make demo   sets everything up, starts the local stack and streams a demo sweep into the dashboards
#   make test   runs the whole test suite (unit, Java, integration against the real local stack)
# Quick loops: `make unit` (the Python unit tests only, no stack) and `make java` (the stream jobs' Maven build
# and tests only).
SHELL := /bin/bash
IOSCALE_HOME ?= $(CURDIR)/.ioscale
export IOSCALE_HOME
VENV := $(IOSCALE_HOME)/venv

.PHONY: demo test unit java up down status bootstrap

bootstrap:
	@scripts/bootstrap.sh

demo: bootstrap
	$(VENV)/bin/ioscale demo

test:
	@scripts/test.sh

unit:
	@scripts/bootstrap.sh --test
	$(VENV)/bin/pytest tests/unit -q

java:
	mvn -B -q -f stream-jobs/pom.xml verify

up: bootstrap
	$(VENV)/bin/ioscale stack up

down:
	@if [ -x $(VENV)/bin/ioscale ]; then $(VENV)/bin/ioscale stack down; fi

status:
	$(VENV)/bin/ioscale stack status
