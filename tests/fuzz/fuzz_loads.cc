// Copyright ferry authors.
//
// libFuzzer target: ferry::loads of a ferry::function from hostile bytes.
// The first input byte picks how the rest is used:
//   0: as a whole frame (exercises the header and checksum checks);
//   1: as a payload, sealed with a correct header first (reaches the parser);
//   2: as patches to a valid frame of this binary's own closures (reaches
//      the code identity and state decoding with a real module and key).
// Anything but a ferry::error, a crash, a leak or a hang is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <serialize/serialize.h>

namespace {

int add_one(int x) { return x + 1; }

std::vector<std::string> valid_frames() {
  std::vector<std::string> out;
  out.push_back(ferry::dumps(ferry::function<int(int)>([](int x) { return x * 2; })));
  out.push_back(ferry::dumps(ferry::function<int(int)>(&add_one)));
  out.push_back(ferry::dumps(ferry::function<int(int)>(
      ferry::closure([](const std::string& s, const std::vector<int>& v, int x) {
        return x + static_cast<int>(s.size() + v.size());
      }, std::string("captured"), std::vector<int>{1, 2, 3}))));
  out.push_back(ferry::dumps(ferry::function<int(int)>(ferry::named<"fuzz.named">([](int x) { return -x; }))));
  ferry::function<int(int)> inner = [](int x) { return x; };
  out.push_back(ferry::dumps(ferry::function<int(int)>(
      ferry::closure([](const ferry::function<int(int)>& f, int x) { return f(x); }, inner))));
  // A shared buffer, written by value (its encoding byte and length).
  ferry::shared_buffer buffer(100);
  out.push_back(ferry::dumps(ferry::function<int(int)>(ferry::closure(
      [](const ferry::shared_buffer& b, int x) { return x + static_cast<int>(b.size()); }, buffer))));
  return out;
}

void try_load(std::string_view bytes) {
  try {
    auto f = ferry::loads<ferry::function<int(int)>>(bytes);
    if (f) (void)f(1);
  } catch (const ferry::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> frames = valid_frames();
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0:
      try_load(rest);
      break;
    case 1: {
      std::string frame(ferry::wire::header_size, '\0');
      frame += rest;
      ferry::detail::seal_frame(frame);
      try_load(frame);
      break;
    }
    case 2: {
      if (rest.empty()) break;
      std::string frame = frames[static_cast<std::uint8_t>(rest[0]) % frames.size()];
      // Patches: (offset byte, value byte) pairs into the payload.
      for (std::size_t i = 1; i + 1 < rest.size(); i += 2) {
        const std::size_t at = ferry::wire::header_size +
                               static_cast<std::uint8_t>(rest[i]) % (frame.size() - ferry::wire::header_size);
        frame[at] = rest[i + 1];
      }
      ferry::detail::seal_frame(frame);
      try_load(frame);
      break;
    }
  }
  return 0;
}
