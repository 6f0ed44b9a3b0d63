#pragma once
// Where the tests find the checkout, the hpaplus binary and further kubectls. They are learnt from
// one small source (build_paths.cpp) instead of a -D on every test's command line, so that only it
// differs between two clones and everything else hits ccache in a fresh clone (CMakeLists.txt).

namespace hpaplus::test {
const char* source_dir();     // the checkout's root
const char* hpaplus_binary(); // the hpaplus executable of this build
const char*
extra_kubectls(); // ':'-separated kubectl binaries the tests also run with; may be empty
} // namespace hpaplus::test

#define HPAPLUS_SOURCE_DIR (::hpaplus::test::source_dir())
#define HPAPLUS_BINARY (::hpaplus::test::hpaplus_binary())
#define HPAPLUS_EXTRA_KUBECTLS (::hpaplus::test::extra_kubectls())
