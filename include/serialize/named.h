// Copyright ferry authors.
//
// ferry::named<"name">(f) gives a callable an explicit, stable name. By
// default code is identified by a key that is only valid for one build of
// its module (the build-id must match); a named callable is found by its name
// instead, in whatever build of the module is loaded. Use it for closures
// persisted across releases:
//
//   ferry::function<double(double)> f =
//       ferry::named<"geometry.scale.v1">([](double x) { return 2 * x; });
//
// The bytes hold the name and the module's path (no build-id). The receiver
// looks the name up among the modules it has loaded; if none registers it,
// it loads the module from an allowed place (serialize/module_policy.h),
// whatever its build, and looks again. Keeping the state's layout compatible
// across builds is then the user's responsibility: change the name when the
// callable's captures or meaning change.
//
// Several modules may register one name for the same callable type (a header
// instantiated in two modules); different callable types under one name and
// signature are an error when loading (ferry::unknown_key_error).
//
// A closure of a named function takes its name, so that one whose captures
// are values is kept across builds too:
//
//   ferry::function<double(double)> scale_by =
//       ferry::closure(ferry::named<"geometry.scale_by.v1">([](double k, double x) { return k * x; }), 2.5);
//
// Two closures of one named function whose captures differ in type but
// leave the same signature share that name: name each closure instead,
// ferry::named<"...">(ferry::closure(...)).
#ifndef FERRY_SERIALIZE_NAMED_H_
#define FERRY_SERIALIZE_NAMED_H_

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "serialize/archive.h"
#include "serialize/internal/registry.h"
#include "serialize/internal/shippable.h"

namespace ferry {

// A string literal usable as a template argument: ferry::named<"a.b">.
template <std::size_t N>
struct stable_name {
  consteval stable_name(const char (&text)[N]) { std::copy_n(text, N, value); }  // NOLINT
  char value[N];
};

namespace detail {

template <stable_name Name, class F>
class named_callable {
  static_assert(shippable<F>, FERRY_NOT_SHIPPABLE_MESSAGE);
  static_assert(sizeof(Name.value) > 1, "ferry::named: the name must not be empty");

 public:
  explicit named_callable(F f) : f_(std::move(f)) {}

  template <class... A>
  auto operator()(A&&... args) const -> std::invoke_result_t<const F&, A...> {
    return std::invoke(f_, std::forward<A>(args)...);
  }

  void ferry_save(output_archive& ar) const { save_state(ar, f_); }
  static named_callable ferry_load(input_archive& ar) { return named_callable(load_state<F>(ar)); }

 private:
  F f_;
};

template <stable_name Name, class F>
inline constexpr const char* stable_name_of<named_callable<Name, F>> = Name.value;

// A closure of a named function, ferry::closure(ferry::named<"n">(fn),
// captures...), is what gets shipped, and its code is fn's: it takes fn's
// name, as Python's pickle ships functools.partial(f, k) as a reference to f
// and k. (serialize/closure.h defines the template.)
template <class Fn, class... Caps>
class bound_closure;
template <stable_name Name, class F, class Cap, class... Caps>
inline constexpr const char* stable_name_of<bound_closure<named_callable<Name, F>, Cap, Caps...>> = Name.value;

}  // namespace detail

// Returns f under the stable name Name (see above).
template <stable_name Name, class F>
detail::named_callable<Name, std::decay_t<F>> named(F&& f) {
  return detail::named_callable<Name, std::decay_t<F>>(std::forward<F>(f));
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_NAMED_H_
