// Copyright ferry authors.
//
// cereal's support for the common std types (strings, containers, tuples,
// optional, variant, smart pointers, chrono), with unordered containers in a
// canonical order (serialize/unordered.h). function.h includes it: the
// code that calls a function across processes is instantiated where the
// function is made, and must see how to serialize its argument and result
// types there.
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

#include "serialize/unordered.h"  // canonical order for ferry's archives

#endif  // FERRY_SERIALIZE_STD_TYPES_H_
