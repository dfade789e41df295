// Copyright ferry authors.
//
// Everything of ferry's serialization layer, including cereal's support for
// the common std types (serialize/std_types.h), so that captures, fields,
// arguments and results of those types just work.
#ifndef FERRY_SERIALIZE_SERIALIZE_H_
#define FERRY_SERIALIZE_SERIALIZE_H_

#include "serialize/aggregate.h"
#include "serialize/archive.h"
#include "serialize/bitwise.h"
#include "serialize/closure.h"
#include "serialize/dumps.h"
#include "serialize/error.h"
#include "serialize/function.h"
#include "serialize/inspect.h"
#include "serialize/module_policy.h"
#include "serialize/named.h"
#include "serialize/shared_buffer.h"
#include "serialize/signing_key.h"
#include "serialize/std_types.h"
#include "serialize/unordered.h"
#include "serialize/wire_format.h"

#endif  // FERRY_SERIALIZE_SERIALIZE_H_
