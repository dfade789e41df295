// Copyright ferry authors. Internal: the registry of shippable callable types.
//
// Every (callable type F, signature Sig) pair used with ferry::function has
// one registry_entry per module that instantiates it: a static member of the
// hidden class template `registration`, constructed when the module is
// loaded. Its key on the wire is its own offset from the module's load base,
// which is unique per type per module and stable for one build of the module
// (the build-id check guarantees the build). docs/design.md explains why
// neither typeid names nor default-visibility statics would do.
#ifndef FERRY_SERIALIZE_INTERNAL_REGISTRY_H_
#define FERRY_SERIALIZE_INTERNAL_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <typeinfo>

#include "serialize/archive.h"
#include "serialize/internal/config.h"
#include "serialize/wire_format.h"

namespace ferry::detail {

// How far call_serialized got, so that a caller can tell a failure to read
// the arguments or write the result from the call's own exception.
enum class call_stage { reading_arguments, calling, writing_result };

// The signature-independent face of every callable held by a function.
class callable_any {
 public:
  virtual ~callable_any() = default;
  // Reads the arguments from `in`, calls, writes the result to `out`: how a
  // worker process runs a task without knowing its types (the code doing
  // it is instantiated in the callable's own module). `stage` follows its
  // progress. Throws ferry::not_shippable_error if the signature's arguments
  // or result cannot be serialized, and whatever the call throws.
  virtual void call_serialized(input_archive& in, output_archive& out, call_stage& stage) const = 0;
};

struct FERRY_EXPORT registry_entry {
  using make_fn = callable_any* (*)(input_archive&);

  // Registers the entry; called during the module's static initialization.
  // stable_name is null unless F was made with ferry::named.
  registry_entry(const char* type_name, const char* signature, make_fn make,
                 const char* stable_name) noexcept;
  // Unregisters it when the module is unloaded.
  ~registry_entry();
  registry_entry(const registry_entry&) = delete;
  registry_entry& operator=(const registry_entry&) = delete;

  const char* type_name;  // typeid(F).name(), mangled
  const char* signature;  // typeid(Sig).name(), mangled
  make_fn make;           // reads F's state, returns a new callable_base<Sig>*
  const char* stable_name;
  std::uint64_t type_hash;  // hash of type_name and signature: a cross-check on the wire
  mutable std::atomic<const module_record*> module{nullptr};  // found on first dumps
};

// make() is defined by function.h: reads F's state and returns a new model
// for Sig. A member of a hidden class rather than a free function template:
// GCC gives a function template with an explicit visibility attribute weak
// linkage even for lambda arguments, merging two files' lambdas of one name.
template <class F, class Sig>
struct FERRY_HIDDEN callable_maker {
  static callable_any* make(input_archive& ar);
};

// ferry::named specializes this (serialize/named.h).
template <class F>
inline constexpr const char* stable_name_of = nullptr;

template <class F, class Sig>
struct FERRY_HIDDEN registration {
  static const registry_entry entry;
};

template <class F, class Sig>
const registry_entry registration<F, Sig>::entry{typeid(F).name(), typeid(Sig).name(),
                                                 &callable_maker<F, Sig>::make, stable_name_of<F>};

// Writes the tag and identity of `entry`: module reference, key and type
// hash, or for a named entry its name and module path. Throws
// ferry::not_shippable_error if the entry's module has no build-id.
FERRY_EXPORT void write_entry(output_archive& ar, const registry_entry& entry);

// Reads an identity written by write_entry, after its tag, and returns the
// registered entry, loading its module if the policy allows. Throws the
// module errors, ferry::unknown_key_error, ferry::type_mismatch_error (entry
// is for another signature than `signature`; null accepts any) and
// ferry::format_error.
FERRY_EXPORT const registry_entry& read_entry(input_archive& ar, wire::function_tag tag,
                                              const char* signature);

// Function pointers: the module holding the code and the offset within it.
// Throws ferry::not_shippable_error if `code` is not the start of a function
// symbol of a loaded module whose parameter list matches `function_type`.
FERRY_EXPORT void write_code_address(output_archive& ar, const void* code,
                                     const char* function_type);
// Returns the address of a function whose symbol starts exactly there and
// whose parameter list matches `function_type` (typeid(R(Args...)).name()).
FERRY_EXPORT const void* read_code_address(input_archive& ar, const char* function_type);

// Reads a ferry::function of any signature (tag, identity, state); null for
// an empty one. Throws like read_entry.
FERRY_EXPORT std::shared_ptr<const callable_any> load_any_function(input_archive& ar);

// Whether the payload written so far names the main executable: code there
// cannot be loaded by a process running another program.
FERRY_EXPORT bool names_main_program(output_archive& ar);

// Whether this process's executable imports the dynamic symbol `mangled`
// (it calls that function of a shared library). False if it cannot tell.
FERRY_EXPORT bool program_imports(const char* mangled) noexcept;

// Bounds the nesting of ferry::function values being decoded.
class FERRY_EXPORT depth_guard {
 public:
  explicit depth_guard(input_archive& ar);
  ~depth_guard();
  depth_guard(const depth_guard&) = delete;
  depth_guard& operator=(const depth_guard&) = delete;

 private:
  input_archive& ar_;
};

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_REGISTRY_H_
