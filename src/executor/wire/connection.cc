// Copyright ferry authors.
#include "executor/wire/connection.h"

#include <sys/socket.h>

#include <algorithm>
#include <utility>

namespace ferry::detail {

connection::connection(unique_fd socket, settings s)
    : socket_(std::move(socket)), settings_(s), reader_(s.max_body) {
  if (s.reuse_files) reuse_.emplace();
}

connection::connection(unique_fd in, unique_fd out, settings s) : connection(std::move(in), s) {
  out_ = std::move(out);
}

void connection::shut_down() {
  for (const unique_fd* fd : {&socket_, &out_})
    if (*fd) ::shutdown(fd->get(), SHUT_RDWR);
}

void connection::authenticate(std::string_view key, channel_auth::side me) {
  auth_.emplace(key, me);
  reader_.authenticate_with(&*auth_);
}

void connection::configure(settings s) {
  settings_ = s;
  reader_.set_max_body(s.max_body);
  if (s.reuse_files && !reuse_) reuse_.emplace();
  if (!s.reuse_files) reuse_.reset();
}

void connection::append_descriptors(std::vector<int>& out) const {
  if (out_) out.push_back(out_.get());
  if (reuse_) reuse_->append_descriptors(out);
}

void connection::send(const outgoing& m) { write(m, auth_ ? &*auth_ : nullptr); }

void connection::send_unsigned(const outgoing& m) { write(m, nullptr); }

void connection::write(const outgoing& m, channel_auth* auth) {
  if (!socket_) throw protocol_error("the connection is closed");
  write_message(out_fd(), auth, m, settings_.shared_memory_threshold, reuse_ ? &*reuse_ : nullptr);
}

void connection::queue(const outgoing& m) {
  append_message(queued_, auth_ ? &*auth_ : nullptr, m);
  queued_ends_.push_back(queued_.size());
}

std::size_t connection::flush() {
  const std::size_t written = socket_ ? write_gathered(out_fd(), queued_) : 0;
  // A peer acts only on a whole message that passed authentication: those
  // cut short never reached it.
  const auto whole = static_cast<std::size_t>(
      std::upper_bound(queued_ends_.begin(), queued_ends_.end(), written) - queued_ends_.begin());
  const std::size_t lost = queued_ends_.size() - whole;
  queued_.clear();
  queued_ends_.clear();
  return lost;
}

}  // namespace ferry::detail
