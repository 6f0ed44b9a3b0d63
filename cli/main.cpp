// cli/main.cpp — the hpaplus executable.
#include "cli/dispatch.hpp"

int main(int argc, char** argv) {
    return hpaplus::cli::run_cli(argc, argv);
}
