// kinds/api_group.cpp — the resource paths of our kinds.
#include "kinds/api_group.hpp"

namespace hpaplus::kinds::resources {

const kube::resource_path hpapluses{api_group, api_version, "hpapluses", true};
const kube::resource_path cronhpas{api_group, api_version, "cronhpas", true};
const kube::resource_path vpapluses{api_group, api_version, "vpapluses", true};
const kube::resource_path vpapluscheckpoints{api_group, api_version, "vpapluscheckpoints", true};
const kube::resource_path hpapluscheckpoints{api_group, api_version, "hpapluscheckpoints", true};

} // namespace hpaplus::kinds::resources
