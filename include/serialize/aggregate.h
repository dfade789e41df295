// Copyright ferry authors.
//
// Aggregates (plain structs, including structs defined inside a function)
// serialize field by field through Boost.PFR reflection, with no code from
// the user:
//
//   struct point { double x, y; };
//   struct task {
//     std::string name;
//     std::vector<point> points;     // nested aggregates work at any depth
//     double operator()() const { ... }
//   };
//   ferry::function<double()> f = task{"t", {{1, 2}}};   // shippable as is
//
// A struct whose fields include a raw pointer or a reference is rejected at
// compile time: the address would mean nothing in another process. A struct
// that has its own cereal serialize/save/load keeps using it.
#ifndef FERRY_SERIALIZE_AGGREGATE_H_
#define FERRY_SERIALIZE_AGGREGATE_H_

#include <cereal/archives/binary.hpp>
#include <boost/pfr/core.hpp>
#include <boost/pfr/tuple_size.hpp>

#include <type_traits>
#include <utility>

#include "serialize/archive.h"

namespace ferry::detail {

// True when the user (or cereal) gave T a serialization of its own. Probing
// with cereal's binary archives finds templated functions without recursing
// into the reflection overload below, which only takes ferry's archives.
template <class T>
inline constexpr bool has_cereal_function =
    cereal::traits::detail::count_output_serializers<T, cereal::BinaryOutputArchive>::value > 0 ||
    cereal::traits::detail::count_input_serializers<T, cereal::BinaryInputArchive>::value > 0 ||
    cereal::traits::has_member_serialize<T, output_archive>::value ||
    cereal::traits::has_member_versioned_serialize<T, output_archive>::value ||
    cereal::traits::has_member_save<T, output_archive>::value ||
    cereal::traits::has_member_versioned_save<T, output_archive>::value ||
    cereal::traits::has_member_save_minimal<T, output_archive>::value ||
    cereal::traits::has_non_member_save<T, output_archive>::value ||
    cereal::traits::has_non_member_versioned_save<T, output_archive>::value ||
    cereal::traits::has_non_member_save_minimal<T, output_archive>::value ||
    cereal::traits::has_member_serialize<T, input_archive>::value ||
    cereal::traits::has_member_load<T, input_archive>::value ||
    cereal::traits::has_member_versioned_load<T, input_archive>::value ||
    cereal::traits::has_non_member_load<T, input_archive>::value ||
    cereal::traits::has_non_member_versioned_load<T, input_archive>::value;

// An empty class has nothing to reflect, and Boost.PFR refuses one with a
// base class (std::plus<int>, a functor deriving from a tag): empty classes
// take the route below instead.
template <class T>
concept reflected_aggregate = std::is_class_v<T> && std::is_aggregate_v<T> && !std::is_union_v<T> &&
                              !std::is_empty_v<T> && !has_cereal_function<T>;

// An empty class without serialization of its own (a tag, std::less<int>)
// as a field, an argument or a result: nothing to write.
template <class T>
concept empty_value = std::is_class_v<T> && std::is_empty_v<T> && std::is_default_constructible_v<T> &&
                      !has_cereal_function<T>;

template <class T, std::size_t... I>
consteval bool has_pointer_field(std::index_sequence<I...>) {
  return (... || (std::is_pointer_v<boost::pfr::tuple_element_t<I, T>> ||
                  std::is_member_pointer_v<boost::pfr::tuple_element_t<I, T>>));
}

template <class T>
consteval bool reflectable() {
  if constexpr (!std::is_copy_constructible_v<T> || !std::is_default_constructible_v<T> ||
                !std::is_copy_assignable_v<T>)
    return false;
  else
    return !has_pointer_field<T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
}

// Fails to compile, naming the problem, unless T's fields can be shipped.
template <class T>
constexpr void check_reflectable() {
  static_assert(std::is_copy_constructible_v<T>,
                "ferry: this aggregate has a field that cannot be copied (a std::mutex, a "
                "std::atomic, a std::unique_ptr, a stream, ...); a shipped callable is copied. "
                "Keep such state out of the callable: create it inside the call, or hold what "
                "it protects by value.");
  static_assert(!std::is_copy_constructible_v<T> ||
                    (std::is_default_constructible_v<T> && std::is_copy_assignable_v<T>),
                "ferry: this aggregate has a reference or const field; a reference means "
                "nothing in another process. Hold the value itself.");
  if constexpr (std::is_copy_constructible_v<T> && std::is_default_constructible_v<T>) {
    static_assert(!has_pointer_field<T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{}),
                  "ferry: this aggregate has a raw pointer field; an address means nothing "
                  "in another process. Hold the value itself (or a ferry::function for code).");
  }
}

}  // namespace ferry::detail

namespace ferry {

template <detail::reflected_aggregate T>
void serialize(output_archive& ar, T& value) {
  detail::check_reflectable<T>();
  if constexpr (detail::reflectable<T>())
    boost::pfr::for_each_field(value, [&ar](const auto& field) { ar(field); });
}

template <detail::empty_value T>
void serialize(output_archive&, T&) {}

template <detail::empty_value T>
void serialize(input_archive&, T&) {}

template <detail::reflected_aggregate T>
void serialize(input_archive& ar, T& value) {
  detail::check_reflectable<T>();
  if constexpr (detail::reflectable<T>())
    boost::pfr::for_each_field(value, [&ar](auto& field) { ar(field); });
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_AGGREGATE_H_
