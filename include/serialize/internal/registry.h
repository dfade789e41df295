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
#include <type_traits>
#include <utility>
#include <cstddef>
#include <typeinfo>

#include "serialize/archive.h"
#include "serialize/internal/config.h"

namespace ferry::detail {

// How far call_serialized got, so that a caller can tell a failure to read
// the arguments or write the result from the call's own exception.
enum class call_stage { reading_arguments, calling, writing_result };

// The signature-independent face of every callable held by a function.
// Counts its own references (callable_ref), so that a function holds its
// callable in one allocation; a stateless callable has one immortal copy per
// module and none.
class callable_any {
 public:
  callable_any() = default;
  callable_any(const callable_any&) = delete;
  callable_any& operator=(const callable_any&) = delete;
  // Reads the arguments from `in`, calls, writes the result to `out`: how a
  // worker process runs a task without knowing its types (the code doing
  // it is instantiated in the callable's own module). `stage` follows its
  // progress. Throws ferry::not_shippable_error if the signature's arguments
  // or result cannot be serialized, and whatever the call throws.
  virtual void call_serialized(input_archive& in, output_archive& out, call_stage& stage) const = 0;

  void add_ref() const noexcept {
    if (!immortal_) refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() const noexcept {
    if (!immortal_ && refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // For a copy in static storage, shared by every function that holds it;
  // before any reference is shared.
  void make_immortal() noexcept { immortal_ = true; }

 protected:
  virtual ~callable_any() = default;

 private:
  mutable std::atomic<std::uint32_t> refs_{1};
  bool immortal_ = false;
};

// An owning pointer to a callable_any (or a class derived from it), like a
// shared_ptr without its separate control block. Adopts the reference that
// a made callable starts with.
template <class T>
class callable_ref {
 public:
  callable_ref() noexcept = default;
  callable_ref(std::nullptr_t) noexcept {}
  explicit callable_ref(T* adopted) noexcept : p_(adopted) {}
  callable_ref(const callable_ref& o) noexcept : p_(o.p_) {
    if (p_) p_->add_ref();
  }
  callable_ref(callable_ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  callable_ref& operator=(callable_ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~callable_ref() {
    if (p_) p_->release();
  }
  void reset(T* adopted = nullptr) noexcept { *this = callable_ref(adopted); }
  void swap(callable_ref& o) noexcept { std::swap(p_, o.p_); }
  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  friend bool operator==(const callable_ref& r, std::nullptr_t) noexcept { return r.p_ == nullptr; }

 private:
  T* p_ = nullptr;
};

struct FERRY_SERIALIZE_EXPORT registry_entry {
  using make_fn = callable_any* (*)(input_archive&);
  using make_from_code_fn = callable_any* (*)(const void* code);

  // Registers the entry; called during the module's static initialization.
  // raw_type_name is the compiler's name of F (see raw_type_name below);
  // stable_name is null unless F was made with ferry::named.
  registry_entry(const char* raw_type_name, const char* signature, make_fn make,
                 const char* stable_name, make_from_code_fn make_from_code) noexcept;
  // Unregisters it when the module is unloaded.
  ~registry_entry();
  registry_entry(const registry_entry&) = delete;
  registry_entry& operator=(const registry_entry&) = delete;

  const char* type_name;  // typeid(F).name(), mangled
  const char* signature;  // typeid(Sig).name(), mangled
  make_fn make;           // reads F's state, returns a new callable_base<Sig>*
  // For F a pointer to a function of type Sig: the callable calling `code`
  // (a verified function address); null for other types.
  make_from_code_fn make_from_code;
  const char* stable_name;
  // F's name is the same type's in every module of a program: F has
  // external linkage, so the one-definition rule makes each module's copy of
  // it the same code (identity.cc then names every module that has it).
  bool unique_name;
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
  static callable_any* from_code(const void* code);
};

template <class F, class Sig>
inline constexpr bool is_pointer_to = std::is_same_v<F, Sig*>;

// ferry::named specializes this (serialize/named.h).
template <class F>
inline constexpr const char* stable_name_of = nullptr;

// typeid(F).name() as the compiler wrote it. libstdc++'s name() hides the
// '*' that GCC puts before the name of a type without external linkage;
// registry_entry needs it to tell which names may collide across modules.
#if defined(__GLIBCXX__)
struct FERRY_HIDDEN type_name_access : std::type_info {
  static constexpr auto name_member = &type_name_access::__name;
};
template <class F>
inline const char* raw_type_name() {
  return typeid(F).*type_name_access::name_member;
}
#else
template <class F>
inline const char* raw_type_name() {
  return typeid(F).name();
}
#endif

template <class F, class Sig>
struct FERRY_HIDDEN registration {
  static const registry_entry entry;
};

template <class F, class Sig>
const registry_entry registration<F, Sig>::entry{
    raw_type_name<F>(), typeid(Sig).name(), &callable_maker<F, Sig>::make, stable_name_of<F>,
    is_pointer_to<F, Sig> ? &callable_maker<F, Sig>::from_code : nullptr};

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_REGISTRY_H_
