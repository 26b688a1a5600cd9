# The two commands the README promises: `make demo` and `make test`.
SWIFT ?= swift
EXAMPLE ?= examples/site/pipeline.yml

.PHONY: setup build demo test bench clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build

demo: build
	.build/debug/pipeline run $(EXAMPLE)

test: setup
	$(SWIFT) build --build-tests
	scripts/test.sh

bench: setup
	$(SWIFT) build -c release
	bench/plan.sh

clean:
	rm -rf .build
