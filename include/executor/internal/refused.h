// Copyright ferry authors. Internal: what a call that fails to compile
// returns.
//
// A misuse the compiler can see fails with ferry's static_assert, which
// says what to do. The call still has a return type, and void (what its
// refused branch gave) made the caller's next line fail too: `auto f =
// pool.submit(bad)` added "'void f' has incomplete type", and `.get()` on
// it "invalid use of void". A refused call returns detail::refused, which
// stands for what the call would have returned (a future, an actor, a
// map's results, their values), so that the caller's own code adds no
// error after ferry's. Its members are declared, never defined: a program
// that names one does not compile anyway.
#ifndef FERRY_EXECUTOR_INTERNAL_REFUSED_H_
#define FERRY_EXECUTOR_INTERNAL_REFUSED_H_

#include <cstddef>

namespace ferry::detail {

struct refused {
  template <class T>
  operator T() const;  // a value, a ferry::future<T>, an actor<T>, ...

  // A future's members, and an actor's.
  refused get() const;
  void wait() const;
  template <class... A>
  refused wait_for(const A&...) const;
  template <class... A>
  refused wait_until(const A&...) const;
  bool ready() const;
  bool valid() const;
  bool has_exception() const;
  template <class... A>
  bool cancel(const A&...) const;
  template <class F>
  void on_done(F&&) const;
  template <class F>
  refused then(F&&) const;
  template <auto... M, class... A>
  refused call(A&&...) const;
  refused operator*() const;  // of a result the caller took for a pointer

  // A map's results, or its stream.
  const refused* begin() const;
  const refused* end() const;
  std::size_t size() const;
  bool empty() const;
  refused operator[](std::size_t) const;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_REFUSED_H_
