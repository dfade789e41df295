// Copyright ferry authors.
#include <serialize/signing_key.h>

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include <serialize/error.h>

namespace ferry {

signing_key signing_key::generate() {
  std::string bytes(default_size, '\0');
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw error(std::string("ferry: cannot generate a signing key: getrandom: ") +
                  std::strerror(errno));
    }
    filled += static_cast<std::size_t>(n);
  }
  return signing_key(bytes);
}

signing_key::signing_key(std::string_view bytes) : bytes_(bytes) {
  if (bytes_.size() < min_size)
    throw error("ferry: a signing key of " + std::to_string(bytes_.size()) +
                " bytes is too short; it needs at least " + std::to_string(min_size) +
                " (signing_key::generate makes " + std::to_string(default_size) + ")");
}

}  // namespace ferry
