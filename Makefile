# The two commands the README promises: `make demo` and `make test`.
SWIFT ?= swift
EXAMPLE ?= examples/site/pipeline.yml

.PHONY: setup build demo test bench fuzz clean

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

# 60 s per fuzz target (FUZZ_SECONDS to change); see scripts/fuzz.sh.
fuzz: setup
	scripts/fuzz.sh

clean:
	rm -rf .build
