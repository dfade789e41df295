// Copyright ferry authors.
#include "executor/wire/channel_auth.h"

#include <cstring>

#include <serialize/signing_key.h>

namespace ferry::detail {

std::string new_pool_key() {
  const signing_key key = signing_key::generate();
  return std::string(key.bytes().substr(0, protocol::key_size));
}

channel_auth::channel_auth(std::string_view key, side me) : mac_(key), me_(me) {}

hmac_sha256::tag channel_auth::compute(unsigned char direction, const protocol::header& h,
                                       std::string_view body, std::string_view passed) {
  mac_.begin();
  mac_.update(std::string_view(reinterpret_cast<const char*>(&direction), 1));
  mac_.update(std::string_view(reinterpret_cast<const char*>(&h), protocol::authenticated_header_bytes));
  mac_.update(body);
  if (!passed.empty()) mac_.update(passed);  // the header says how many: no ambiguity
  return mac_.finish();
}

void channel_auth::sign(protocol::header& h, std::string_view body, std::string_view passed) {
  h.sequence = sent_++;
  const hmac_sha256::tag tag = compute(static_cast<unsigned char>(me_), h, body, passed);
  std::memcpy(h.tag, tag.data(), tag.size());
}

void channel_auth::verify(const protocol::header& h, std::string_view body, std::string_view passed) {
  const auto peer = static_cast<unsigned char>(me_ == side::pool ? side::worker : side::pool);
  // The tag first: a sequence number is only worth reporting if the sender
  // holds the key.
  if (!hmac_sha256::equal(compute(peer, h, body, passed), h.tag))
    throw authentication_failure("its tag does not match (message of kind " +
                                 std::to_string(static_cast<int>(h.type)) + ", " +
                                 std::to_string(h.length) + " bytes): it was forged or changed");
  if (h.sequence != received_)
    throw authentication_failure("sequence number " + std::to_string(h.sequence) + ", expected " +
                                 std::to_string(received_) + ": the message was replayed or reordered");
  ++received_;
}

}  // namespace ferry::detail
