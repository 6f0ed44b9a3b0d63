# The hpaplus image for deploy/base/controller.yaml: built with the repository's own set-up script
# on Debian bookworm, run on bookworm-slim with only the runtime libraries.
#
#   scripts/image-build.sh            buildah, no daemon; passes the build arguments below
#   docker build --build-arg HPAPLUS_VERSION=... .
#
# HPAPLUS_VERSION is CMakeLists.txt's project(VERSION), HPAPLUS_REVISION the git commit and
# HPAPLUS_SOURCE the repository's URL: the build context leaves .git out (.dockerignore), so they
# come in as arguments, and SOURCE_DATE_EPOCH (the commit's time) keeps the build date the same
# in every build of one commit.
# HPAPLUS_BINARY_FROM=prebuilt takes a binary already built on bookworm (build/hpaplus in a context
# that holds only it, LICENSE and NOTICE: what CI does, scripts/image-build.sh --prebuilt) instead
# of building it in the `build` stage; the runtime stage is the same either way.
ARG HPAPLUS_VERSION=unknown
ARG HPAPLUS_REVISION=unknown
ARG HPAPLUS_SOURCE=unknown
ARG SOURCE_DATE_EPOCH
ARG HPAPLUS_BINARY_FROM=build

FROM debian:bookworm AS build
ARG HPAPLUS_REVISION
ARG SOURCE_DATE_EPOCH
WORKDIR /src
COPY . .
RUN HPAPLUS_REVISION=$HPAPLUS_REVISION SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH \
      HPAPLUS_CMAKE_ARGS=-DHPAPLUS_BUILD_TESTS=OFF ./scripts/setup.sh && strip build/hpaplus

FROM scratch AS prebuilt
COPY build/hpaplus /src/build/hpaplus

FROM ${HPAPLUS_BINARY_FROM} AS binary

# One package per shared library `ldd build/hpaplus` lists (tests/unit/manifests/image_test.cpp
# checks it), tzdata for the CronHPA time zones, and CA certificates for TLS backends.
FROM debian:bookworm-slim
ARG HPAPLUS_VERSION
ARG HPAPLUS_REVISION
ARG HPAPLUS_SOURCE
RUN apt-get update && apt-get install -y --no-install-recommends \
      libc6 libgcc-s1 libstdc++6 libssl3 libspdlog1.10 libfmt9 libyaml-cpp0.7 \
      libprometheus-cpp-core1.0 libdate-tz3 libfftw3-double3 tzdata ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=binary /src/build/hpaplus /usr/local/bin/hpaplus
COPY LICENSE NOTICE /usr/share/doc/hpaplus/
# The binary links FFTW (GPL-2.0-or-later): NOTICE explains the image's licence as a whole.
LABEL org.opencontainers.image.title="hpaplus" \
      org.opencontainers.image.description="A Kubernetes horizontal autoscaler, drop-in for the HPA controller" \
      org.opencontainers.image.version="$HPAPLUS_VERSION" \
      org.opencontainers.image.revision="$HPAPLUS_REVISION" \
      org.opencontainers.image.source="$HPAPLUS_SOURCE" \
      org.opencontainers.image.licenses="Apache-2.0 AND GPL-2.0-or-later"
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/hpaplus"]
CMD ["controller"]
