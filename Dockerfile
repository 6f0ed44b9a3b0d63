# The hpaplus image for deploy/controller.yaml: built with the repository's own set-up script on
# Debian bookworm, run on bookworm-slim with only the runtime libraries.
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN HPAPLUS_CMAKE_ARGS=-DHPAPLUS_BUILD_TESTS=OFF ./scripts/setup.sh && strip build/hpaplus

# One package per shared library `ldd build/hpaplus` lists (tests/unit/manifests/image_test.cpp
# checks it), tzdata for the CronHPA time zones, and CA certificates for TLS backends.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libc6 libgcc-s1 libstdc++6 libssl3 libspdlog1.10 libfmt9 libyaml-cpp0.7 \
      libprometheus-cpp-core1.0 libdate-tz3 libfftw3-double3 tzdata ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/hpaplus /usr/local/bin/hpaplus
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/hpaplus"]
CMD ["controller"]
