// Copyright ferry authors. Internal: the mark of a symbol that one of ferry's
// libraries exports for ferry's other libraries, tools and tests alone. It
// is declared in a src/ header, never installed, always in ferry::detail;
// users cannot reach it and its ABI may change with any release.
// tests/package/check_exports.py lists these beside the public exports.
#ifndef FERRY_SRC_INTERNAL_EXPORT_H_
#define FERRY_SRC_INTERNAL_EXPORT_H_

#define FERRY_INTERNAL_EXPORT __attribute__((visibility("default")))

#endif  // FERRY_SRC_INTERNAL_EXPORT_H_
