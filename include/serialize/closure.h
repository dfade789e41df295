// Copyright ferry authors.
//
// ferry::closure(fn, captures...) binds captured values to a callable:
// closure(fn, a, b)(x) calls fn(a, b, x). The captures are stored by value
// and serialized with cereal, so they may be of any cereal-serializable,
// default-constructible type; fn must itself be shippable (a capture-less
// lambda, a function pointer, ...). This is how to ship a lambda whose
// captures cannot be copied bitwise:
//
//   std::string greeting = "hello";
//   ferry::function<std::string(const std::string&)> f = ferry::closure(
//       [](const std::string& g, const std::string& name) { return g + ", " + name; },
//       greeting);
//   f("ferry");  // "hello, ferry"
//
// The captures are passed to fn as const lvalues; the closure is immutable.
// Thread-safety: like any const object, a closure may be called from many
// threads at once if fn may be.
#ifndef FERRY_SERIALIZE_CLOSURE_H_
#define FERRY_SERIALIZE_CLOSURE_H_

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "serialize/archive.h"
#include "serialize/internal/shippable.h"

namespace ferry {
namespace detail {

// Fails to compile unless capture number `Position` (from 0), of type
// `Capture`, can be serialized; the compiler's note names both.
template <std::size_t Position, class Capture>
consteval bool check_capture() {
  static_assert(serializable_value<Capture>,
                "ferry::closure: a capture cannot be shipped; the template arguments of "
                "check_capture<Position, Capture> above say which. It must be default-"
                "constructible and cereal-serializable by value: a pointer, a span, a stream or a "
                "member pointer is not; capture a std::string or std::vector instead, "
                "or give the type cereal functions; a standard type that serialize/std_types.h "
                "does not cover, such as std::list, needs its cereal header first, e.g. "
                "#include <cereal/types/list.hpp>");
  return true;
}

template <class... Caps, std::size_t... I>
consteval bool check_captures(std::index_sequence<I...>) {
  return (check_capture<I, Caps>() && ...);
}

template <class Fn, class... Caps>
class bound_closure {
  static_assert(!mutable_call_only<Fn>, FERRY_MUTABLE_CALLABLE_MESSAGE("ferry::closure"));
  static_assert(shippable<Fn>, FERRY_NOT_SHIPPABLE_MESSAGE);
  static_assert(check_captures<Caps...>(std::index_sequence_for<Caps...>{}));

 public:
  bound_closure(Fn fn, Caps... caps) : fn_(std::move(fn)), caps_(std::move(caps)...) {}

  template <class... A>
  auto operator()(A&&... args) const -> std::invoke_result_t<const Fn&, const Caps&..., A...> {
    return std::apply(
        [&](const Caps&... caps) -> decltype(auto) {
          return std::invoke(fn_, caps..., std::forward<A>(args)...);
        },
        caps_);
  }

  void ferry_save(output_archive& ar) const {
    save_state(ar, fn_);
    std::apply([&ar](const Caps&... caps) { (ar(caps), ...); }, caps_);
  }
  static bound_closure ferry_load(input_archive& ar) {
    // Braced initialization evaluates left to right, the order they were written.
    return bound_closure{load_state<Fn>(ar), load_value<Caps>(ar)...};
  }

 private:
  Fn fn_;
  std::tuple<Caps...> caps_;
};

}  // namespace detail

// Returns a shippable callable that calls fn(captures..., args...). Each
// capture is stored as the type it travels as: a string literal, another
// C string or a std::string_view as the std::string of its text
// (ferry::error for a null C string), a std::map's element
// std::pair<const K, V> as std::pair<K, V>.
template <class Fn, class... Caps>
detail::bound_closure<std::decay_t<Fn>, detail::travels_as_t<Caps>...> closure(Fn&& fn, Caps&&... captures) {
  return {std::forward<Fn>(fn), detail::as_travelling(std::forward<Caps>(captures))...};
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_CLOSURE_H_
