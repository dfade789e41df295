// Copyright ferry authors.
//
// Everything of ferry's serialization layer, plus cereal's support for the
// common std types (strings, containers, tuples, optional, variant, smart
// pointers, chrono), so that captures and fields of those types just work.
#ifndef FERRY_SERIALIZE_SERIALIZE_H_
#define FERRY_SERIALIZE_SERIALIZE_H_

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

#include "serialize/aggregate.h"
#include "serialize/archive.h"
#include "serialize/bitwise.h"
#include "serialize/closure.h"
#include "serialize/dumps.h"
#include "serialize/error.h"
#include "serialize/function.h"
#include "serialize/module_policy.h"
#include "serialize/named.h"
#include "serialize/wire_format.h"

#endif  // FERRY_SERIALIZE_SERIALIZE_H_
