# The two commands a newcomer needs (README.md):
#   make demo   sets everything up, starts the local stack and streams a demo sweep into the dashboards
#   make test   runs the whole test suite (unit, Java, integration against the real local stack)
SHELL := /bin/bash
IOSCALE_HOME ?= $(CURDIR)/.ioscale
export IOSCALE_HOME
VENV := $(IOSCALE_HOME)/venv

.PHONY: demo test up down status bootstrap

bootstrap:
	@scripts/bootstrap.sh

demo: bootstrap
	$(VENV)/bin/ioscale demo

test:
	@scripts/test.sh

up: bootstrap
	$(VENV)/bin/ioscale stack up

down:
	@if [ -x $(VENV)/bin/ioscale ]; then $(VENV)/bin/ioscale stack down; fi

status:
	$(VENV)/bin/ioscale stack status
