// Copyright ferry authors.
//
// The one place that owns ferry's wire format; docs/api/wire_format.md
// describes it byte by byte. Change a layout here only together with
// `version` and that page.
//
// A frame written by ferry::dumps:
//
//   offset  size  field
//   0       3     magic "FRY"
//   3       1     version
//   4       4     CRC-32C of the payload (little-endian)
//   8       8     payload length in bytes (little-endian)
//   16      n     payload: the value in ferry's binary archive encoding
//
// A signed frame (ferry::dumps with a signing_key) has the magic "FRS" and is
// followed by 32 bytes: HMAC-SHA256, under the key, of everything before them.
//
// The payload is the value, then a directory of the modules it names:
//
//   value      the value in ferry's binary archive encoding
//   directory  for each module, in order of first reference: its path and
//              its raw GNU build-id, each as a u64 length and the bytes
//   u32        number of modules in the directory
//   u32        size of the directory in bytes
//
// Inside the value, a ferry::function is a tag byte followed by its code
// identity (module reference, key, type hash) and then its captured state. A
// module reference is an index into the directory, so that what the value
// needs can be read (ferry::inspect) without reading the value.
#ifndef FERRY_SERIALIZE_WIRE_FORMAT_H_
#define FERRY_SERIALIZE_WIRE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ferry::wire {

inline constexpr std::string_view magic{"FRY", 3};
inline constexpr std::string_view signed_magic{"FRS", 3};
inline constexpr std::uint8_t version = 2;
inline constexpr std::size_t signature_size = 32;
inline constexpr std::size_t header_size = 16;

// First byte of every encoded ferry::function.
enum class function_tag : std::uint8_t {
  empty = 0,  // nothing follows
  keyed = 1,  // module_ref, u64 key, u64 type hash, state
  named = 2,  // stable name, module path (no build-id), state
  pointer = 3,  // signature (mangled), module_ref, u64 offset: a function
                // pointer, named by the module of its target alone
  shared = 4,   // u8 count n, n x (module_ref, u64 key), u64 type hash, state:
                // a type whose name is unique in a program, registered in
                // each of n modules; any one of them may make it
};

// Most modules a shared record lists.
inline constexpr std::size_t max_shared_modules = 8;

// Longest stable name (ferry::named) accepted on the wire.
inline constexpr std::size_t max_stable_name = 256;
// Longest mangled signature of a function pointer record.
inline constexpr std::size_t max_signature = 4096;

// A module reference is a u32 index: in a frame, into its directory; in the
// executor's messages, which have no directory, into the modules already
// named in the body, where the index equal to their count introduces a new
// module and its path and raw build-id follow, as in a directory.
inline constexpr std::size_t max_module_path = 4096;
inline constexpr std::size_t max_build_id = 64;
inline constexpr std::size_t max_modules_per_payload = 256;
inline constexpr std::size_t directory_footer_size = 8;

// ferry::function values nest (a closure capturing a function capturing a
// function ...); decoding refuses deeper nesting than this so that hostile
// bytes cannot exhaust the stack.
inline constexpr std::size_t max_function_depth = 64;

}  // namespace ferry::wire

#endif  // FERRY_SERIALIZE_WIRE_FORMAT_H_
