// Copyright ferry authors.
//
// ferry's archives write unordered containers (std::unordered_map,
// unordered_set, and their multi- variants) in a canonical order, so that
// equal values give equal bytes whatever order their elements were inserted
// in, the container's bucket count, or the process that rebuilt them:
// sorted by key, where keys have operator<. Where they do not, the elements
// go in iteration order, and so do elements of equal keys in the multi-
// variants (std::stable_sort keeps it). The layout is cereal's, so reading
// is cereal's own. std_types.h includes this after cereal's headers.
#ifndef FERRY_SERIALIZE_UNORDERED_H_
#define FERRY_SERIALIZE_UNORDERED_H_

#include <cereal/cereal.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "serialize/archive.h"

namespace ferry {
namespace detail {

template <class K>
concept ordered_key = requires(const K& a, const K& b) {
  { a < b } -> std::convertible_to<bool>;
};

// The container's elements, as iterators, in the canonical order.
template <class Container, class KeyOf>
std::vector<typename Container::const_iterator> canonical_order(const Container& c, KeyOf key_of) {
  std::vector<typename Container::const_iterator> out;
  out.reserve(c.size());
  for (auto it = c.begin(); it != c.end(); ++it) out.push_back(it);
  if constexpr (ordered_key<typename Container::key_type>)
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key_of(*a) < key_of(*b); });
  return out;
}

template <class Map>
void save_map(output_archive& ar, const Map& map) {
  ar(cereal::make_size_tag(static_cast<cereal::size_type>(map.size())));
  for (const auto& it : canonical_order(map, [](const auto& item) -> const auto& { return item.first; }))
    ar(cereal::make_map_item(it->first, it->second));
}

template <class Set>
void save_set(output_archive& ar, const Set& set) {
  ar(cereal::make_size_tag(static_cast<cereal::size_type>(set.size())));
  for (const auto& it : canonical_order(set, [](const auto& key) -> const auto& { return key; })) ar(*it);
}

}  // namespace detail

template <class K, class V, class H, class E, class A>
void save(output_archive& ar, const std::unordered_map<K, V, H, E, A>& map) {
  detail::save_map(ar, map);
}
template <class K, class V, class H, class E, class A>
void save(output_archive& ar, const std::unordered_multimap<K, V, H, E, A>& map) {
  detail::save_map(ar, map);
}
template <class K, class H, class E, class A>
void save(output_archive& ar, const std::unordered_set<K, H, E, A>& set) {
  detail::save_set(ar, set);
}
template <class K, class H, class E, class A>
void save(output_archive& ar, const std::unordered_multiset<K, H, E, A>& set) {
  detail::save_set(ar, set);
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_UNORDERED_H_
