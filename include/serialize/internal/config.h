// Copyright ferry authors. Internal: symbol visibility and platform checks.
#ifndef FERRY_SERIALIZE_INTERNAL_CONFIG_H_
#define FERRY_SERIALIZE_INTERNAL_CONFIG_H_

#include <bit>

// ferry's libraries are built with hidden visibility; what users call is
// exported explicitly.
#define FERRY_SERIALIZE_EXPORT __attribute__((visibility("default")))

// Per-module objects (the registration of a closure type) must never be
// merged across modules by the dynamic linker, see docs/design.md.
#define FERRY_HIDDEN __attribute__((visibility("hidden")))

// Inlined at every optimization level, -O0 included: for the code that must
// run in the module of its caller (function.h's converting constructor).
#define FERRY_ALWAYS_INLINE __attribute__((always_inline)) inline

static_assert(std::endian::native == std::endian::little,
              "ferry's wire format is little-endian; big-endian hosts are not supported");

#endif  // FERRY_SERIALIZE_INTERNAL_CONFIG_H_
