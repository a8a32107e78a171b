# One verb per habit. `make run` and `make test` work on a fresh machine: both install what is missing.
MVN := mvn -B -ntp
STATE ?= $(CURDIR)/state
CPP_BUILD := cpp/build

.PHONY: help deps build java cpp test unit cpp-test bench-test system-test sim bench run stop status clean

help:            ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

deps:            ## install missing system packages (Debian)
	@bin/install-deps

build: java cpp  ## compile and package everything (protobuf code is generated here)

java: deps       ## the Java servers, client, tools, simulator and benchmarks
	$(MVN) -q package -Dmaven.test.skip=true

cpp: deps        ## the C++ client core and mount.xtreemfs (cpp/build)
	cmake -S cpp -B $(CPP_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
	cmake --build $(CPP_BUILD) -j2

test: deps       ## every test: Java unit/integration/architecture/simulation, C++ unit, system (FUSE)
	$(MVN) verify
	$(MAKE) --no-print-directory cpp-test
	$(MAKE) --no-print-directory bench-test
	tests/system/run $(CPP_BUILD)    # mvn verify has packaged the Java side already

unit: deps       ## unit tests of the pure QoS library and the foundation only (seconds)
	$(MVN) verify -pl servers/qos,servers/foundation -am

cpp-test: cpp    ## C++ unit tests (GoogleTest through ctest)
	ctest --test-dir $(CPP_BUILD) --output-on-failure

bench-test:      ## unit tests of the benchmark harnesses' own logic (fio parsing, ratios, reports)
	python3 -m unittest discover -s tests/bench/fuse -p 'test_*.py'
	python3 -m unittest discover -s tests/bench/qos_fuse -p 'test_*.py'
	python3 -m unittest discover -s tests/bench/fast -p 'test_*.py'
	python3 -m unittest discover -s tests/bench/core -p 'test_*.py'

system-test: java cpp  ## a local cluster, a FUSE mount and POSIX/fio/tar checks through it
	tests/system/run $(CPP_BUILD)

sim: java        ## every simulation scenario, with CSV output and plots under state/sim
	bin/xtreemfs-sim --all --out $(STATE)/sim
	contrib/bench/plot_reservations.py --csv-dir $(STATE)/sim --out $(STATE)/sim/reservations.png
	@echo "plot: $(STATE)/sim/reservations.png"

bench: java cpp  ## benchmarks (never part of make test); figures go to state/bench
	@bin/install-deps --bench
	bin/xtreemfs-bench --out $(STATE)/bench

run: build       ## start a local cluster (DIR, MRC, three typed OSDs), three volumes and their mounts
	bin/xtreemfs-demo --state $(STATE)

stop:            ## unmount and stop the local cluster started by make run
	bin/xtreemfs-cluster stop --state $(STATE)

status:          ## what of the local cluster runs, and where
	bin/xtreemfs-cluster status --state $(STATE)

clean:           ## remove build output (not state/)
	$(MVN) -q clean
	rm -rf $(CPP_BUILD)
