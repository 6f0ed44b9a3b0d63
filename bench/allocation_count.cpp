// bench/allocation_count.cpp — the global operator new, counted (allocation_count.hpp).
#include "allocation_count.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HPAPLUS_BENCH_NO_COUNT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HPAPLUS_BENCH_NO_COUNT 1
#endif
#endif

namespace hpaplus::bench {
namespace {
std::atomic<std::uint64_t> calls{0};
} // namespace

std::uint64_t allocations() {
    return calls.load(std::memory_order_relaxed);
}

#ifdef HPAPLUS_BENCH_NO_COUNT
bool allocations_counted() {
    return false;
}
#else
bool allocations_counted() {
    return true;
}
#endif

} // namespace hpaplus::bench

#ifndef HPAPLUS_BENCH_NO_COUNT
namespace {

void* counted(std::size_t n, std::size_t alignment) {
    hpaplus::bench::calls.fetch_add(1, std::memory_order_relaxed);
    if (n == 0) n = 1;
    if (alignment <= alignof(std::max_align_t)) return std::malloc(n);
    // aligned_alloc wants a size that is a multiple of the alignment.
    return std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment);
}

void* counted_or_throw(std::size_t n, std::size_t alignment) {
    void* p = counted(n, alignment);
    if (!p) throw std::bad_alloc();
    return p;
}

} // namespace

void* operator new(std::size_t n) {
    return counted_or_throw(n, 0);
}
void* operator new[](std::size_t n) {
    return counted_or_throw(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a) {
    return counted_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
    return counted_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return counted(n, 0);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    return counted(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    std::free(p);
}
#endif
