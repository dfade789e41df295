// Copyright ferry authors.
//
// cereal's support for the common std types (strings, containers, tuples,
// optional, variant, smart pointers, chrono), with unordered containers in a
// canonical order (serialize/unordered.h), and ferry's own for the two
// filesystem types a task is most often given, which cereal lacks. function.h
// includes it: the code that calls a function across processes is
// instantiated where the function is made, and must see how to serialize its
// argument and result types there.
#ifndef FERRY_SERIALIZE_STD_TYPES_H_
#define FERRY_SERIALIZE_STD_TYPES_H_

#include <cereal/types/array.hpp>
#include <cereal/types/chrono.hpp>
#include <cereal/types/deque.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/memory.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/unordered_map.hpp>
#include <cereal/types/unordered_set.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

#include <filesystem>
#include <string>

#include "serialize/unordered.h"  // canonical order for ferry's archives

namespace cereal {

// A std::filesystem::path travels as its text (native(), a std::string on
// Linux): `pool.map(count_lines, paths)` over a std::vector of them. The
// text is the same path only where the file system is the same (another
// host of an MPI job sees its own).
template <class Archive>
void save(Archive& ar, const std::filesystem::path& p) {
  ar(p.native());
}
template <class Archive>
void load(Archive& ar, std::filesystem::path& p) {
  std::string text;
  ar(text);
  p = std::move(text);
}

// A std::filesystem::directory_entry travels as its path, so a map can read
// a directory_iterator: `pool.map(f, std::filesystem::directory_iterator(d))`,
// f taking the entry or a path. What the entry had cached of the file's
// status stays behind; the loaded entry asks the file system again
// (directory_entry::assign), where a file gone since reads as not found.
template <class Archive>
void save(Archive& ar, const std::filesystem::directory_entry& e) {
  ar(e.path());
}
template <class Archive>
void load(Archive& ar, std::filesystem::directory_entry& e) {
  std::filesystem::path p;
  ar(p);
  std::error_code ignored;  // a file gone since: the entry says not found
  e.assign(p, ignored);
}

}  // namespace cereal

#endif  // FERRY_SERIALIZE_STD_TYPES_H_
