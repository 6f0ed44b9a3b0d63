#include "build_paths.hpp"

namespace hpaplus::test {
const char* source_dir() {
    return HPAPLUS_SOURCE_DIR_VALUE;
}
const char* hpaplus_binary() {
    return HPAPLUS_BINARY_VALUE;
}
const char* extra_kubectls() {
    return HPAPLUS_EXTRA_KUBECTLS_VALUE;
}
} // namespace hpaplus::test
