// Copyright ferry authors. Internal: a time point a duration after another,
// as every timeout and grace ferry takes becomes one.
//
// `now + timeout` overflows for a duration a user gives to mean "as good as
// forever" (std::chrono::milliseconds::max(), hours::max()) and wraps into
// the past: the wait would end at once and a task would be killed before
// it ran. These saturate instead, and take any duration type, a floating
// one included, as std::future::wait_for does.
//
// Thread-safety: pure functions.
#ifndef FERRY_EXECUTOR_INTERNAL_DEADLINE_H_
#define FERRY_EXECUTOR_INTERNAL_DEADLINE_H_

#include <chrono>

namespace ferry::detail {

using deadline_clock = std::chrono::steady_clock;

// `from` + `d`: time_point::max() (never) for a duration of half the
// clock's range left or more (about 146 years), `from` for one of zero or
// less, or NaN.
template <class Rep, class Period>
deadline_clock::time_point later_by(deadline_clock::time_point from, const std::chrono::duration<Rep, Period>& d) {
  const std::chrono::duration<double> seconds = d;  // compared in double: no conversion overflows
  if (!(seconds > seconds.zero())) return from;
  if (seconds >= std::chrono::duration<double>(deadline_clock::time_point::max() - from) / 2)
    return deadline_clock::time_point::max();
  return from + std::chrono::ceil<deadline_clock::duration>(d);
}

// later_by(now, d).
template <class Rep, class Period>
deadline_clock::time_point deadline_after(const std::chrono::duration<Rep, Period>& d) {
  return later_by(deadline_clock::now(), d);
}

// `d` rounded up to whole milliseconds, saturated at milliseconds::max()
// (and min()).
template <class Rep, class Period>
std::chrono::milliseconds saturating_milliseconds(const std::chrono::duration<Rep, Period>& d) {
  using ms = std::chrono::milliseconds;
  const std::chrono::duration<double, std::milli> in_ms = d;
  if (in_ms >= std::chrono::duration<double, std::milli>(ms::max()) / 2) return ms::max();
  if (in_ms <= std::chrono::duration<double, std::milli>(ms::min()) / 2) return ms::min();
  if (!(in_ms == in_ms)) return ms::zero();  // NaN
  return std::chrono::ceil<ms>(d);
}

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_DEADLINE_H_
