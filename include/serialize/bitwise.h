// Copyright ferry authors.
//
// ferry::bitwise(lambda) ships a capturing lambda by copying its bytes. It is
// an explicit opt-in because no type trait can tell a value capture from a
// pointer or reference capture:
//
//   int n = 3;
//   ferry::function<int(int)> ok = ferry::bitwise([n](int x) { return x + n; });
//
//   std::vector<int> v = ...;
//   auto wrong = ferry::bitwise([p = v.data()](int i) { return p[i]; });
//   // Compiles (a pointer is trivially copyable) but the receiver reads an
//   // address of the sender's memory: garbage, a crash, or, in a forked
//   // worker, a stale copy that silently looks right.
//
// The padding between captures is zeroed in the copy (GCC's
// __builtin_clear_padding); a compiler without that builtin refuses closure
// types that may have padding. Use it only when every capture is a plain value: arithmetic types, enums,
// trivially copyable structs of those. Capture by [=] of such values is fine;
// [&], `this`, pointers, std::string_view and spans are never fine. For
// captures that own memory (std::string, std::vector) use ferry::closure.
//
// Thread-safety: the wrapper is immutable; calling it is as safe as calling
// the lambda through a const reference.
#ifndef FERRY_SERIALIZE_BITWISE_H_
#define FERRY_SERIALIZE_BITWISE_H_

#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "serialize/archive.h"
#include "serialize/internal/shippable.h"

#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
#define FERRY_CAN_CLEAR_PADDING 1
#endif
#endif
#ifndef FERRY_CAN_CLEAR_PADDING
#define FERRY_CAN_CLEAR_PADDING 0
#endif

namespace ferry {
namespace detail {

template <class F>
class bitwise_callable {
  static_assert(std::is_trivially_copyable_v<F>,
                "ferry::bitwise needs a lambda whose captures are all trivially copyable "
                "values; for captures such as std::string use ferry::closure(fn, captures...)");
  static_assert(!std::is_pointer_v<F>, "ferry::bitwise takes a lambda, not a pointer");
  static_assert(!mutable_call_only<F>, FERRY_MUTABLE_CALLABLE_MESSAGE("ferry::bitwise"));
#if !FERRY_CAN_CLEAR_PADDING
  static_assert(std::has_unique_object_representations_v<F>,
                "ferry::bitwise: this compiler cannot clear the padding between a lambda's "
                "captures, which would leave the process with the bytes; it takes here only "
                "lambdas without padding or floating-point captures. Use ferry::closure(fn, "
                "captures...) instead");
#endif

 public:
  // Copies f's bytes, with the padding between its captures zeroed: what
  // the sender's memory held there must not leave the process.
  explicit bitwise_callable(const F& f) noexcept {
    std::memcpy(bytes_, std::addressof(f), sizeof(F));
#if FERRY_CAN_CLEAR_PADDING
    __builtin_clear_padding(std::launder(reinterpret_cast<F*>(bytes_)));
#endif
  }

  template <class... A>
    requires(!mutable_call_only<F>)
  auto operator()(A&&... args) const -> std::invoke_result_t<const F&, A...> {
    return std::invoke(get(), std::forward<A>(args)...);
  }
  // Declared only so that the static_assert above is the one error a
  // mutable lambda gets, not a failed conversion after it.
  template <class... A>
    requires mutable_call_only<F>
  auto operator()(A&&... args) const -> std::invoke_result_t<F&, A...>;

  void ferry_save(output_archive& ar) const { ar.saveBinary(bytes_, sizeof bytes_); }
  static bitwise_callable ferry_load(input_archive& ar) {
    bitwise_callable c;
    ar.loadBinary(c.bytes_, sizeof c.bytes_);
    return c;
  }

 private:
  bitwise_callable() = default;  // only for ferry_load, which fills bytes_ at once
  // A trivially copyable type's object may be created by copying its bytes.
  const F& get() const noexcept { return *std::launder(reinterpret_cast<const F*>(bytes_)); }

  alignas(F) unsigned char bytes_[sizeof(F)];
};

}  // namespace detail

// Wraps `f` so that ferry ships it by its bytes. See the hazard above.
template <class F>
detail::bitwise_callable<std::decay_t<F>> bitwise(F&& f) {
  return detail::bitwise_callable<std::decay_t<F>>(f);
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_BITWISE_H_
