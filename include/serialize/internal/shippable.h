// Copyright ferry authors. Internal: how a callable type's state is coded.
//
// The routes, tried in this order:
//   self-coded      ferry's own wrappers (bitwise, closure) code themselves;
//   function ptr    the module and offset of the code, verified on load;
//   stateless       an empty, default-constructible type: nothing to write;
//   cereal          a type with cereal functions, or an aggregate reflected
//                   by Boost.PFR (serialize/aggregate.h).
// Anything else is not shippable and fails to compile with the message below.
#ifndef FERRY_SERIALIZE_INTERNAL_SHIPPABLE_H_
#define FERRY_SERIALIZE_INTERNAL_SHIPPABLE_H_

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "serialize/aggregate.h"
#include "serialize/archive.h"
#include "serialize/internal/identity.h"

// A string literal, because static_assert takes nothing else.
#define FERRY_NOT_SHIPPABLE_MESSAGE                                                              \
  "ferry: this callable cannot be shipped: ferry cannot serialize its captured state. "          \
  "Take one of these routes: (1) a capture-less lambda or a function pointer; "                  \
  "(2) ferry::closure(fn, captures...) to bind captures of any cereal-serializable type, "       \
  "e.g. a std::string: ferry::closure([](const std::string& s, int x) { ... }, s); "             \
  "(3) ferry::bitwise(lambda) when every capture is a plain value (int, double, enum, "          \
  "trivially copyable struct) and never a pointer or reference; "                                \
  "(4) an aggregate struct with operator() and serializable fields; "                            \
  "(5) a class with a cereal serialize/save/load function. See docs/api/serialize.md."

namespace ferry::detail {

// The type a value of type A travels as: a std::map's element,
// std::pair<const K, V>, which saves but whose const key cannot be loaded
// into, as std::pair<K, V> (a task given such elements receives each as
// the pair it converts to); a C string (a string literal, a const char*)
// or a std::string_view, whose pointer would mean nothing in another
// process, as the std::string of its text; any other type as itself.
template <class A>
struct travels_as {
  using type = A;
};
template <class K, class V>
struct travels_as<std::pair<const K, V>> {
  using type = std::pair<K, V>;
};
template <>
struct travels_as<const char*> {
  using type = std::string;
};
template <>
struct travels_as<char*> {
  using type = std::string;
};
template <>
struct travels_as<std::string_view> {
  using type = std::string;
};
template <class A>
using travels_as_t = typename travels_as<std::decay_t<A>>::type;

// The text of a C string that is to travel; a null pointer has none.
// Throws ferry::error for one (an argument: its task fails with
// ferry::serialization_error; a closure's capture: ferry::closure throws).
inline const char* c_string_text(const char* s) {
  if (s == nullptr)
    throw error(
        "ferry: a null const char*: a C string travels as the std::string of its text, and a "
        "null pointer has none; pass a string (an empty one for no text)");
  return s;
}

// Whether A is a C string: a string literal, a const char*, a char*.
template <class A>
inline constexpr bool is_c_string =
    std::is_same_v<std::decay_t<A>, const char*> || std::is_same_v<std::decay_t<A>, char*>;

// A value as the type it travels as (a C string's text checked, above).
template <class A>
travels_as_t<A> as_travelling(A&& value) {
  if constexpr (is_c_string<A>)
    return std::string(c_string_text(value));
  else
    return travels_as_t<A>(std::forward<A>(value));
}

// A value that can travel: an argument, a result, a capture of
// ferry::closure. Not a pointer, which cereal's traits accept and its
// static_assert then refuses, in words about cereal rather than the task.
template <class T>
inline constexpr bool serializable_value =
    !std::is_pointer_v<T> && !std::is_member_pointer_v<T> &&
    std::is_same_v<typename travels_as<T>::type, T> && std::is_default_constructible_v<T> &&
    cereal::traits::is_output_serializable<T, output_archive>::value &&
    cereal::traits::is_input_serializable<T, input_archive>::value;

// A class whose one operator() is a non-const member (a mutable lambda):
// ferry calls what it holds through const, so such a callable can never run.
// A template operator() (a generic lambda) cannot be inspected and passes.
template <class M>
inline constexpr bool is_non_const_member_call = false;
template <class C, class R, class... A>
inline constexpr bool is_non_const_member_call<R (C::*)(A...)> = true;
template <class C, class R, class... A>
inline constexpr bool is_non_const_member_call<R (C::*)(A...) noexcept> = true;
template <class F>
concept mutable_call_only = std::is_class_v<F> && requires { &F::operator(); } &&
                            is_non_const_member_call<decltype(&F::operator())>;

#define FERRY_MUTABLE_CALLABLE_MESSAGE(wrapper)                                                \
  wrapper " was given a callable that can only be called as non-const (a mutable lambda?), "  \
  "and ferry calls what it holds through const. Drop `mutable`, or keep changing state in "   \
  "the arguments and the result: a shipped callable's state does not come back."

template <class F>
concept function_pointer = std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>;

template <class F>
concept self_coded = requires(const F& f, output_archive& out, input_archive& in) {
  f.ferry_save(out);
  { F::ferry_load(in) } -> std::same_as<F>;
};

template <class F>
concept stateless = std::is_empty_v<F> && std::is_default_constructible_v<F> &&
                    std::is_copy_constructible_v<F> && !has_cereal_function<F>;

template <class F>
concept cereal_coded = std::is_default_constructible_v<F> &&
                       cereal::traits::is_output_serializable<F, output_archive>::value &&
                       cereal::traits::is_input_serializable<F, input_archive>::value;

template <class F>
concept shippable = self_coded<F> || function_pointer<F> || stateless<F> || cereal_coded<F>;

template <class F>
void save_state(output_archive& ar, const F& f) {
  if constexpr (self_coded<F>) {
    f.ferry_save(ar);
  } else if constexpr (function_pointer<F>) {
    write_code_address(ar, reinterpret_cast<const void*>(f),
                       typeid(std::remove_pointer_t<F>).name());
  } else if constexpr (stateless<F>) {
  } else {
    static_assert(cereal_coded<F>, FERRY_NOT_SHIPPABLE_MESSAGE);
    ar(f);
  }
}

template <class F>
F load_state(input_archive& ar) {
  if constexpr (self_coded<F>) {
    return F::ferry_load(ar);
  } else if constexpr (function_pointer<F>) {
    return reinterpret_cast<F>(
        const_cast<void*>(read_code_address(ar, typeid(std::remove_pointer_t<F>).name())));
  } else if constexpr (stateless<F>) {
    return F{};
  } else {
    static_assert(cereal_coded<F>, FERRY_NOT_SHIPPABLE_MESSAGE);
    F f{};
    ar(f);
    return f;
  }
}

// A value read with cereal; used for the captures of ferry::closure.
template <class T>
T load_value(input_archive& ar) {
  T value{};
  ar(value);
  return value;
}

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_SHIPPABLE_H_
