// Copyright ferry authors. Helpers shared by the serialization tests.
#ifndef FERRY_TESTS_SERIALIZE_TEST_UTIL_H_
#define FERRY_TESTS_SERIALIZE_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>

#include <serialize/serialize.h>

namespace ferry::testing {

template <class T>
T round_trip(const T& value) {
  return loads<T>(dumps(value));
}

// Recomputes the header of an edited frame so that only the edit is tested,
// not the checksum.
inline std::string reseal(std::string frame) {
  detail::seal_frame(frame);
  return frame;
}

// Layout of a frame holding one keyed ferry::function whose first module
// reference names a new module (see serialize/wire_format.h).
struct keyed_layout {
  std::size_t path_length_at, path_at, path_size, build_id_at, build_id_size, key_at;
};
inline keyed_layout layout_of(const std::string& frame) {
  keyed_layout l{};
  l.path_length_at = wire::header_size + 1 + 4;
  std::uint64_t n;
  std::memcpy(&n, frame.data() + l.path_length_at, 8);
  l.path_at = l.path_length_at + 8;
  l.path_size = n;
  const std::size_t id_len_at = l.path_at + n;
  std::memcpy(&n, frame.data() + id_len_at, 8);
  l.build_id_at = id_len_at + 8;
  l.build_id_size = n;
  l.key_at = l.build_id_at + n;
  return l;
}

// The frame with the first module's recorded path replaced.
inline std::string with_module_path(const std::string& frame, const std::string& path) {
  const keyed_layout l = layout_of(frame);
  std::string out = frame.substr(0, l.path_length_at);
  const std::uint64_t n = path.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += path;
  out += frame.substr(l.path_at + l.path_size);
  return reseal(out);
}

}  // namespace ferry::testing

#endif  // FERRY_TESTS_SERIALIZE_TEST_UTIL_H_
