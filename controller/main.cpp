// controller/main.cpp — the hpaplus executable.
#include "controller/cli.hpp"

int main(int argc, char** argv) {
    return hpaplus::controller::run_cli(argc, argv);
}
