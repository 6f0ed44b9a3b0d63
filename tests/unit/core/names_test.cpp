// DNS-1123 names as apimachinery's IsDNS1123Label / IsDNS1123Subdomain accept them.
#include "core/names.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace hpaplus::core {
namespace {

TEST(Names, Dns1123Labels) {
    for (const std::string& ok : std::initializer_list<std::string>{"a", "0", "shop", "kube-system",
                                                                    "a-1", std::string(63, 'a')})
        EXPECT_TRUE(is_dns1123_label(ok)) << ok;
    for (const std::string& bad :
         std::initializer_list<std::string>{"", "-a", "a-", "A", "a_b", "a.b", "a b", "a\"",
                                            std::string(64, 'a'), std::string("a\0b", 3)})
        EXPECT_FALSE(is_dns1123_label(bad)) << bad;
}

TEST(Names, Dns1123Subdomains) {
    for (const std::string& ok : std::initializer_list<std::string>{
             "a", "web-7d4b9c-x2x", "a.b", "a-1.b-2.c", std::string(253, 'a'),
             std::string(100, 'a') + "." + std::string(100, 'b')})
        EXPECT_TRUE(is_dns1123_subdomain(ok)) << ok;
    for (const std::string& bad : std::initializer_list<std::string>{
             "", ".a", "a.", "a..b", "-a.b", "a.-b", "A.b", "a/b", "*", std::string(254, 'a')})
        EXPECT_FALSE(is_dns1123_subdomain(bad)) << bad;
}

} // namespace
} // namespace hpaplus::core
