# One verb per habit. `make run` and `make test` work on a fresh machine: both install what is missing.
MVN := mvn -B -ntp
STATE ?= $(CURDIR)/state

.PHONY: help deps build test unit sim sim-all bench run stop check clean

help:            ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

deps:            ## install missing system packages (Debian)
	@bin/install-deps

build: deps      ## compile and package everything (protobuf code is generated here)
	$(MVN) -q package -DskipTests

test: deps       ## every test: unit, integration, the fast simulation scenarios
	$(MVN) verify

unit: deps       ## unit tests of the pure QoS library and the foundation only (seconds)
	$(MVN) verify -pl servers/qos,servers/foundation -am

sim: build       ## every simulation scenario, with CSV output and plots under state/sim
	bin/xtreemfs-sim --all --out $(STATE)/sim
	contrib/bench/plot_reservations.py --csv-dir $(STATE)/sim --out $(STATE)/sim/reservations.png
	@echo "plot: $(STATE)/sim/reservations.png"

bench: build     ## benchmarks (never part of make test); figures go to state/bench
	bin/xtreemfs-bench --out $(STATE)/bench

run: build       ## start a local cluster (DIR, MRC, typed OSDs) and a demo volume
	bin/xtreemfs-local-cluster start --state $(STATE)

stop:            ## stop the local cluster started by make run
	bin/xtreemfs-local-cluster stop --state $(STATE)

clean:           ## remove build output (not state/)
	$(MVN) -q clean
