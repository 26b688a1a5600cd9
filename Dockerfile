# pipeline in a container, made the way a machine without Swift gets it:
#   build    `make dist` on Swift's Debian 12 image: dist/pipeline_VERSION_amd64.deb and the tarball
#   runtime  debian:bookworm-slim with `apt-get install ./pipeline_VERSION_amd64.deb`, which brings
#            the Depends (and, with ENGINE_TOOLS=true, the Recommends: libvips, ffmpeg, jpegtran,
#            optipng, exiftool for the local engine)
# These are the steps scripts/dist-check.sh proves in a debootstrapped Debian 12 on every `make test`.
#
#   docker build -t pipeline .
#   docker run --rm -v "$PWD:/work" pipeline run pipeline.yml
#   docker run --rm -p 8787:8787 pipeline serve --host 0.0.0.0   # the engine, reachable from the host
#   docker build --build-arg ENGINE_TOOLS=false -t pipeline:runner .   # the runner alone, much smaller

ARG SWIFT_VERSION=6.3

FROM swift:${SWIFT_VERSION}-bookworm AS build
# make, and what scripts/setup.sh (run by `make dist`) needs to make its Python environment.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends make python3 python3-venv python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The Debian packages and Python peers first: this layer stays cached while the sources change.
COPY scripts/setup.sh scripts/setup.sh
RUN scripts/setup.sh
COPY . .
# The packages' file times; the default is the build's own time.
ARG SOURCE_DATE_EPOCH
RUN make dist && cat dist/SHA256SUMS

FROM debian:bookworm-slim AS runtime
ARG ENGINE_TOOLS=true
COPY --from=build /src/dist/ /tmp/dist/
RUN cd /tmp/dist && sha256sum --check SHA256SUMS \
    && apt-get update \
    && if [ "$ENGINE_TOOLS" = true ]; then recommends=--install-recommends; else recommends=--no-install-recommends; fi \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y "$recommends" ./pipeline_*.deb \
    && rm -rf /var/lib/apt/lists/* /tmp/dist \
    && pipeline --version \
    && useradd --create-home --uid 1000 pipeline
USER pipeline
WORKDIR /work
ENTRYPOINT ["pipeline"]
CMD ["--help"]
