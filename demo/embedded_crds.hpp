// demo/embedded_crds.hpp — the CRD manifests of crds/, compiled in at build time so that
// `hpaplus demo` installs exactly what the repository ships.
#pragma once

namespace hpaplus::demo {

/// crds/hpaplus.yaml.
extern const char* const hpaplus_crd_yaml;
/// crds/cronhpa.yaml.
extern const char* const cronhpa_crd_yaml;
/// crds/vpaplus.yaml (VPAPlus and VPAPlusCheckpoint).
extern const char* const vpaplus_crd_yaml;

} // namespace hpaplus::demo
