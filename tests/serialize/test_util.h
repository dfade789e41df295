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

// A frame around a payload made by hand: the value's bytes and an empty
// module directory.
inline std::string frame_of_value(const std::string& value) {
  std::string frame(wire::header_size, '\0');
  frame += value;
  frame.append(wire::directory_footer_size, '\0');
  return reseal(frame);
}

// Layout of a frame holding one keyed ferry::function (see
// serialize/wire_format.h): its key after the tag and the module reference,
// and its first module at the start of the directory that ends the payload.
struct keyed_layout {
  std::size_t key_at, directory_at, path_at, path_size, build_id_at, build_id_size;
};
inline keyed_layout layout_of(const std::string& frame) {
  keyed_layout l{};
  l.key_at = wire::header_size + 1 + 4;
  std::uint32_t directory_size;
  std::memcpy(&directory_size, frame.data() + frame.size() - 4, 4);
  l.directory_at = frame.size() - wire::directory_footer_size - directory_size;
  std::uint64_t n;
  std::memcpy(&n, frame.data() + l.directory_at, 8);
  l.path_at = l.directory_at + 8;
  l.path_size = n;
  std::memcpy(&n, frame.data() + l.path_at + l.path_size, 8);
  l.build_id_at = l.path_at + l.path_size + 8;
  l.build_id_size = n;
  return l;
}

// The frame with the first module's recorded path replaced.
inline std::string with_module_path(const std::string& frame, const std::string& path) {
  const keyed_layout l = layout_of(frame);
  std::string out = frame.substr(0, l.directory_at);
  const std::uint64_t n = path.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += path;
  out += frame.substr(l.path_at + l.path_size, frame.size() - 4 - (l.path_at + l.path_size));
  std::uint32_t directory_size;
  std::memcpy(&directory_size, frame.data() + frame.size() - 4, 4);
  directory_size = static_cast<std::uint32_t>(directory_size - l.path_size + path.size());
  out.append(reinterpret_cast<const char*>(&directory_size), 4);
  return reseal(out);
}

}  // namespace ferry::testing

#endif  // FERRY_TESTS_SERIALIZE_TEST_UTIL_H_
