// Copyright ferry authors. Internal: a function's code identity on the wire
// (layout in serialize/wire_format.h; coded by src/serialize/code/identity.cc).
//
// Declared here because ferry::function's templates call them; users never
// do.
#ifndef FERRY_SERIALIZE_INTERNAL_IDENTITY_H_
#define FERRY_SERIALIZE_INTERNAL_IDENTITY_H_

#include "serialize/archive.h"
#include "serialize/internal/config.h"
#include "serialize/internal/registry.h"
#include "serialize/wire_format.h"

namespace ferry::detail {

// Writes the tag and identity of `entry`: module reference, key and type
// hash, or for a named entry its name and module path. Throws
// ferry::not_shippable_error if the entry's module has no build-id.
FERRY_SERIALIZE_EXPORT void write_entry(output_archive& ar, const registry_entry& entry);

// Reads the tag that starts every encoded function. Throws
// ferry::format_error, at the tag's offset, for a value no tag has.
FERRY_SERIALIZE_EXPORT wire::function_tag read_function_tag(input_archive& ar);

// Reads an identity written by write_entry, after its tag (keyed or named),
// and returns the registered entry, loading its module if the policy allows.
// Throws the module errors, ferry::unknown_key_error,
// ferry::type_mismatch_error (entry is for another signature than
// `signature`; null accepts any) and ferry::format_error.
FERRY_SERIALIZE_EXPORT const registry_entry& read_entry(input_archive& ar, wire::function_tag tag,
                                              const char* signature);

// A whole function record for a pointer to a function of type `signature`
// (mangled): the tag, the signature and the code address, so that a receiver
// needs only the module holding the target. Throws like write_code_address.
FERRY_SERIALIZE_EXPORT void write_pointer_record(output_archive& ar, const void* code, const char* signature);
// Reads such a record after its tag and returns the verified address.
// Throws ferry::type_mismatch_error when it was made for another signature,
// and like read_code_address.
FERRY_SERIALIZE_EXPORT const void* read_pointer_record(input_archive& ar, const char* signature);

// Function pointers: the module holding the code and the offset within it.
// Throws ferry::not_shippable_error if `code` is not the start of a function
// symbol of a loaded module whose parameter list matches `function_type`.
FERRY_SERIALIZE_EXPORT void write_code_address(output_archive& ar, const void* code,
                                     const char* function_type);
// Returns the address of a function whose symbol starts exactly there and
// whose parameter list matches `function_type` (typeid(R(Args...)).name()).
FERRY_SERIALIZE_EXPORT const void* read_code_address(input_archive& ar, const char* function_type);

// A frame's payload ends with a directory of the modules its value names
// (layout in serialize/wire_format.h). Writing: call list_modules_at_end
// before writing the value and write_module_directory after it.
FERRY_SERIALIZE_EXPORT void list_modules_at_end(output_archive& ar);
FERRY_SERIALIZE_EXPORT void write_module_directory(output_archive& ar);
// Reading: read_module_directory before reading the value takes the
// directory off the end of the bytes ar reads; finish_payload after it
// checks that nothing is left and that the value referred to every listed
// module. Both throw ferry::format_error naming the offset.
FERRY_SERIALIZE_EXPORT void read_module_directory(input_archive& ar);
FERRY_SERIALIZE_EXPORT void finish_payload(input_archive& ar);

// Lets the modules that the bytes read through `ar` name be loaded from the
// paths recorded in them, without the allow-list, because their source
// vouches for them: a message verified under a pool's key, bytes signed with
// a key trusted for code. The build-id is still checked before a file is
// opened. Call before reading anything.
FERRY_SERIALIZE_EXPORT void vouch_for_modules(input_archive& ar);

// Bounds the nesting of ferry::function values to wire::max_function_depth:
// decoding deeper throws ferry::format_error, encoding deeper (which no
// receiver would accept) ferry::not_shippable_error, before the stack runs
// out either way.
class FERRY_SERIALIZE_EXPORT depth_guard {
 public:
  explicit depth_guard(input_archive& ar);
  explicit depth_guard(output_archive& ar);
  ~depth_guard();
  depth_guard(const depth_guard&) = delete;
  depth_guard& operator=(const depth_guard&) = delete;

 private:
  std::size_t& depth_;
};

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_IDENTITY_H_
