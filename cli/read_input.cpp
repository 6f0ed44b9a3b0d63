// cli/read_input.cpp — see the header.
#include "cli/read_input.hpp"

#include <fstream>
#include <iostream>

namespace hpaplus::cli {

core::outcome<std::string> read_input(std::string_view path, std::size_t limit) {
    std::ifstream file;
    if (path != "-") {
        file.open(std::string(path), std::ios::binary);
        if (!file) return core::error_message("cannot open the file");
    }
    std::istream& in = path == "-" ? std::cin : file;
    // Read at most limit + 1 bytes: enough to tell that the input is too large.
    std::string text;
    char chunk[65536];
    while (in && text.size() <= limit) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (text.size() > limit)
        return core::error_message("the input is larger than " + std::to_string(limit >> 20) +
                                   " MiB");
    return core::success(std::move(text));
}

} // namespace hpaplus::cli
