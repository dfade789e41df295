// Copyright ferry authors. Internal: a map's input, read a chunk at a time
// and submitted as one task (the chunk_source of map_window.h).
#ifndef FERRY_EXECUTOR_INTERNAL_RANGE_CHUNKS_H_
#define FERRY_EXECUTOR_INTERNAL_RANGE_CHUNKS_H_

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <ranges>
#include <tuple>
#include <utility>
#include <vector>

#include "executor/internal/map_window.h"
#include "executor/internal/retries.h"
#include "executor/internal/submit.h"
#include "serialize/archive.h"

namespace ferry::detail {

// How one input of a map becomes the arguments of one call of a function of
// parameters P...: with one parameter, the input is its argument; with more,
// the input is a tuple (zip_inputs.h), one element per parameter.
template <class... P>
struct map_call {
  template <class Input>
  static void write(output_archive& ar, const Input& input) {
    if constexpr (sizeof...(P) == 1) {
      ar(as_parameter<P...>(input));
    } else {
      std::apply([&](const auto&... part) { (ar(as_parameter<P>(part)), ...); }, input);
    }
  }
  // The input as kept for a chunk's retries: a copy, a C string's text
  // with it (hold_argument).
  template <class Input>
  static auto hold(Input&& input) {
    if constexpr (sizeof...(P) == 1) {
      return hold_argument(std::forward<Input>(input));
    } else {
      const auto hold_each = [](auto&&... part) {
        return std::make_tuple(hold_argument(std::forward<decltype(part)>(part))...);
      };
      return std::apply(hold_each, std::forward<Input>(input));
    }
  }
};

template <class Fn, class Call, class View>
class range_chunks final : public chunk_source {
 public:
  // `priority`, `retries`: map_options', each chunk's; without `retries`,
  // the pool's task_retries.
  range_chunks(std::shared_ptr<task_queue> queue, Fn fn, View inputs, int priority, std::optional<unsigned> retries)
      : queue_(std::move(queue)),
        fn_(std::move(fn)),
        inputs_(std::move(inputs)),
        priority_(priority),
        retries_(retries.value_or(queue_->task_retries())) {}

  submitted next(std::uint32_t most) override {
    if (!it_) it_.emplace(std::ranges::begin(inputs_));
    auto& it = *it_;
    if (retries_ != 0) return next_with_retries(most);
    if constexpr (std::ranges::forward_range<View>) {
      // Counted first, then encoded from the range itself: no copy.
      const auto first = it;
      std::uint32_t n = 0;
      for (; n < most && it != std::ranges::end(inputs_); ++it) ++n;
      if (n == 0) return {};
      std::exception_ptr input_error;
      auto encode = [&](output_archive& ar) {
        for (auto c = first; c != it; ++c) {
          auto&& value = [&]() -> decltype(auto) {
            try {
              return *c;
            } catch (...) {
              input_error = std::current_exception();
              throw;
            }
          }();
          Call::write(ar, value);
        }
      };
      submitted s{submit_encoded(*queue_, fn_, n, encode, {.priority = priority_}), n};
      // The input threw while being encoded: not the task's failure but the
      // map's; the state was failed, nothing was queued.
      if (input_error) std::rethrow_exception(input_error);
      return s;
    } else {
      // A single pass: each input is read once, into the chunk's buffer.
      buffer_.clear();
      for (; buffer_.size() < most && it != std::ranges::end(inputs_); ++it) buffer_.emplace_back(*it);
      if (buffer_.empty()) return {};
      auto encode = [&](output_archive& ar) {
        for (const auto& value : buffer_) Call::write(ar, value);
      };
      const auto n = static_cast<std::uint32_t>(buffer_.size());
      return {submit_encoded(*queue_, fn_, n, encode, {.priority = priority_}), n};
    }
  }

 private:
  // With retries: the chunk is sent again, as a task submitted with retries
  // is, after its worker's death; its inputs are copied, to be encoded
  // again then, and kept until the chunk ends.
  submitted next_with_retries(std::uint32_t most) {
    auto& it = *it_;
    using held_input = decltype(Call::hold(*it));
    auto held = std::make_shared<std::vector<held_input>>();
    for (; held->size() < most && it != std::ranges::end(inputs_); ++it) held->push_back(Call::hold(*it));
    if (held->empty()) return {};
    const auto n = static_cast<std::uint32_t>(held->size());
    send_attempt send = [held, fn = fn_, n, priority = priority_](task_queue& queue) {
      auto encode = [&](output_archive& ar) {
        for (const auto& value : *held) Call::write(ar, value);
      };
      return submit_encoded(queue, fn, n, encode, {.priority = priority});
    };
    return {run_with_retries(queue_, std::move(send), task_options{.priority = priority_}, retries_), n};
  }

  std::shared_ptr<task_queue> queue_;
  Fn fn_;
  View inputs_;
  int priority_;
  unsigned retries_;
  std::optional<std::ranges::iterator_t<View>> it_;  // once the first chunk is read
  std::vector<std::ranges::range_value_t<View>> buffer_;  // single-pass inputs only
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_RANGE_CHUNKS_H_
