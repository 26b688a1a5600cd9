# The two commands the README promises: `make demo` and `make test`.
SWIFT ?= swift
EXAMPLE ?= examples/site/pipeline.yml

.PHONY: setup setup-build build demo test soak bench fuzz clean install install-files uninstall dist dist-check

# Where `make install` puts things; DESTDIR for packaging.
PREFIX ?= /usr/local
DESTDIR ?=
PIPELINE_BIN ?= .build/release/pipeline
# zsh's folder below PREFIX: site-functions is on zsh's path for /usr/local; the .deb uses
# Debian's share/zsh/vendor-completions.
ZSH_COMPLETIONS ?= share/zsh/site-functions
ROOT = $(DESTDIR)$(PREFIX)
INSTALLED = $(ROOT)/bin/pipeline $(ROOT)/share/man/man1/pipeline.1 \
	$(ROOT)/share/bash-completion/completions/pipeline $(ROOT)/$(ZSH_COMPLETIONS)/_pipeline \
	$(ROOT)/share/fish/vendor_completions.d/pipeline.fish

# Everything the tests use; setup-build only what building, packaging and the demo need.
setup:
	@scripts/setup.sh test

setup-build:
	@scripts/setup.sh build

build: setup-build
	$(SWIFT) build

demo: build
	.build/debug/pipeline run $(EXAMPLE)

# scripts/test.sh installs the test tools, builds and runs the tests, and builds and checks the
# packages beside them.
test: setup-build
	SWIFT=$(SWIFT) scripts/test.sh

# The incremental-equals-clean model test with more sequences than the suite's: SEEDS seeds of
# STEPS actions each (Tests/CLITests/IncrementalModelTests.swift, its two halves at once), from seed FIRST.
SEEDS ?= 50
STEPS ?= 30
FIRST ?= 1
soak: setup
	$(SWIFT) build --build-tests
	PIPELINE_MODEL_SEEDS=$(SEEDS) PIPELINE_MODEL_STEPS=$(STEPS) PIPELINE_MODEL_SEED=$(FIRST) \
		XCTEST_CLASSES=IncrementalModel scripts/xctest-parallel.sh

bench: setup
	bench/plan.sh

# 60 s per fuzz target (FUZZ_SECONDS to change); see scripts/fuzz.sh.
fuzz: setup
	scripts/fuzz.sh

# The release binary as the packages have it (Swift's libraries linked in: it starts sooner and
# keeps working when the toolchain changes), its manual page, completions for bash, zsh and fish,
# and the JSON schemas.
install: setup-build
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --product pipeline --scratch-path .build/static
	$(MAKE) install-files PIPELINE_BIN=.build/static/release/pipeline

install-files:
	install -d $(ROOT)/bin $(ROOT)/share/man/man1 $(ROOT)/share/bash-completion/completions \
		$(ROOT)/$(ZSH_COMPLETIONS) $(ROOT)/share/fish/vendor_completions.d $(ROOT)/share/pipeline/schemas
	install -m 755 $(PIPELINE_BIN) $(ROOT)/bin/pipeline
	$(PIPELINE_BIN) help --man > $(ROOT)/share/man/man1/pipeline.1
	$(PIPELINE_BIN) completions bash > $(ROOT)/share/bash-completion/completions/pipeline
	$(PIPELINE_BIN) completions zsh > $(ROOT)/$(ZSH_COMPLETIONS)/_pipeline
	$(PIPELINE_BIN) completions fish > $(ROOT)/share/fish/vendor_completions.d/pipeline.fish
	install -m 644 schemas/*.json $(ROOT)/share/pipeline/schemas/

# dist/: the tarball and the .deb of the release binary (Swift's libraries linked in), with SHA256SUMS.
dist: setup-build
	scripts/dist.sh

# Installs dist/'s packages on a fresh Debian 12 (a debootstrapped chroot) and runs them there.
dist-check: setup dist
	scripts/dist-check.sh

uninstall:
	rm -f $(INSTALLED)
	rm -rf $(ROOT)/share/pipeline

clean:
	rm -rf .build .build-dist dist
