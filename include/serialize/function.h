// Copyright ferry authors.
//
// ferry::function<R(Args...)> holds any shippable callable, like
// std::function, and can also be turned into bytes and back: in another
// process, even one that never linked the shared library the code lives in.
//
//   // in a plugin, libgreet.so:
//   ferry::function<std::string()> make_greeting() {
//     return [] { return std::string("ok"); };   // a lambda local to this function
//   }
//   // in a process that never linked libgreet.so:
//   ferry::allow_module("/opt/app/plugins");
//   auto f = ferry::loads<ferry::function<std::string()>>(bytes);
//   f();  // "ok": libgreet.so was loaded to run it
//
// Shippable callables (docs/api/serialize.md has one example of each):
//   1. function pointers to free functions, of any linkage;
//   2. capture-less lambdas;
//   3. ferry::bitwise(lambda) for lambdas capturing plain values only;
//   4. aggregates with operator(), fields serialized with cereal (via PFR);
//   5. classes with cereal serialize/save/load;
//   6. ferry::closure(fn, captures...).
// Anything else fails to compile with a message naming these routes.
//
// The code is identified by its module (path and GNU build-id) and a key
// that the module registers when it loads: no macro, no list to maintain.
//
// Copies share the (immutable) callable. A ferry::function may be called,
// copied and serialized from many threads at once. Serializing it is
// cereal-compatible with ferry's archives only (ferry::output_archive and
// ferry::input_archive), which is what ferry::dumps/loads use, so a function
// can be a field, an argument, a result or a capture of another closure.
#ifndef FERRY_SERIALIZE_FUNCTION_H_
#define FERRY_SERIALIZE_FUNCTION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "serialize/archive.h"
#include "serialize/error.h"
#include "serialize/internal/identity.h"
#include "serialize/internal/registry.h"
#include "serialize/internal/shippable.h"
#include "serialize/std_types.h"
#include "serialize/wire_format.h"

namespace ferry {

template <class Signature>
class function;

namespace detail {

template <class R, class... Args>
class callable_base : public callable_any {
 public:
  virtual R call(Args&&... args) const = 0;
  // Writes the tag, the code identity and the state.
  virtual void save(output_archive& ar) const = 0;

  void call_serialized(input_archive& in, output_archive& out, call_stage& stage) const final {
    if constexpr ((serializable_value<std::decay_t<Args>> && ...) &&
                  (std::is_void_v<R> || serializable_value<std::decay_t<R>>)) {
      stage = call_stage::reading_arguments;
      std::tuple<std::decay_t<Args>...> args;
      std::apply([&in](auto&... a) { (in(a), ...); }, args);
      auto invoke = [&]<std::size_t... I>(std::index_sequence<I...>) -> R {
        return call(static_cast<Args&&>(std::get<I>(args))...);
      };
      stage = call_stage::calling;
      if constexpr (std::is_void_v<R>) {
        invoke(std::index_sequence_for<Args...>{});
      } else {
        R result = invoke(std::index_sequence_for<Args...>{});
        stage = call_stage::writing_result;
        out(result);
      }
    } else {
      throw_unserializable_signature(typeid(R(Args...)).name());
    }
  }
};

// Hidden, like registration: each module must use its own copy, whose save()
// names that module's registration. A shared copy (say of the model for a
// plain function pointer type) would be bound by the dynamic linker to
// whichever module came first, attributing the code to that module.
template <class F, class R, class... Args>
class FERRY_HIDDEN callable_model final : public callable_base<R, Args...> {
 public:
  explicit callable_model(F f) : f_(std::move(f)) {}

  R call(Args&&... args) const override {
    if constexpr (std::is_void_v<R>) {
      std::invoke(f_, std::forward<Args>(args)...);
    } else {
      return std::invoke(f_, std::forward<Args>(args)...);
    }
  }

  void save(output_archive& ar) const override {
    if constexpr (is_pointer_to<F, R(Args...)>) {
      // Named by its target's module alone: wherever it was wrapped, any
      // process that has the target's module can call it.
      write_pointer_record(ar, reinterpret_cast<const void*>(f_), typeid(R(Args...)).name());
    } else {
      write_entry(ar, registration<F, R(Args...)>::entry);
      save_state(ar, f_);
    }
  }

 private:
  F f_;
};

// Makes the model of F. Hidden like the model, and called from the
// always-inlined converting constructor of function, so that the model is
// made by the module that wraps the callable even at -O0: an out-of-line
// constructor has default visibility, and the dynamic linker would bind a
// library's call to the executable's copy, attributing the library's code to
// the executable.
template <class F, class R, class... Args>
struct FERRY_HIDDEN model_maker {
  static callable_base<R, Args...>* make(F f) {
    using model = callable_model<F, R, Args...>;
    if constexpr (std::is_empty_v<F> && std::is_trivially_copyable_v<F>) {
      // Every copy of a stateless callable is the same: one immortal model,
      // in static storage so that it outlives every function holding it
      // (and is not a leak when its module is unloaded).
      alignas(model) static unsigned char storage[sizeof(model)];
      static model* const one = [&f] {
        auto* m = new (storage) model(std::move(f));
        m->make_immortal();
        return m;
      }();
      return one;
    } else {
      return new model(std::move(f));
    }
  }
};

template <class Signature>
struct signature_traits;
template <class R, class... Args>
struct signature_traits<R(Args...)> {
  template <class F>
  using maker = model_maker<F, R, Args...>;
};

template <class F, class Signature>
callable_any* callable_maker<F, Signature>::make(input_archive& ar) {
  return signature_traits<Signature>::template maker<F>::make(load_state<F>(ar));
}

template <class F, class Signature>
callable_any* callable_maker<F, Signature>::from_code(const void* code) {
  if constexpr (is_pointer_to<F, Signature>) {
    return signature_traits<Signature>::template maker<F>::make(reinterpret_cast<F>(const_cast<void*>(code)));
  } else {
    return nullptr;
  }
}

// A std::function, which hides the type of what it holds.
template <class F>
inline constexpr bool is_std_function = false;
template <class Signature>
inline constexpr bool is_std_function<std::function<Signature>> = true;

}  // namespace detail

template <class R, class... Args>
class function<R(Args...)> {
  using base = detail::callable_base<R, Args...>;

 public:
  using result_type = R;

  // An empty function; calling it throws ferry::bad_function_call.
  function() noexcept = default;
  function(std::nullptr_t) noexcept {}

  // Holds a copy of f. A null function pointer gives an empty function.
  // Fails to compile, naming the ways out, when f is not shippable.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function> &&
             std::is_invocable_r_v<R, const std::decay_t<F>&, Args...>)
  FERRY_ALWAYS_INLINE function(F&& f) {  // NOLINT(google-explicit-constructor): like std::function
    using D = std::decay_t<F>;
    if constexpr (detail::reflected_aggregate<D>) detail::check_reflectable<D>();  // says which field
    // Three things a std::invoke user passes, each with what to do instead.
    static_assert(!std::is_member_pointer_v<D>,
                  "ferry: a pointer to a member (&S::f) cannot be shipped: it names no code ferry can "
                  "find by itself in another process. Call the member from a capture-less lambda that "
                  "takes the object, and pass the object as an argument: "
                  "pool.submit([](const S& s, int y) { return s.f(y); }, s, 21); or, to a pool, name "
                  "the member as a template argument: pool.submit<&S::f>(s, 21)");
    static_assert(!std::is_bind_expression_v<D>,
                  "ferry: the result of std::bind cannot be shipped: ferry cannot serialize what it "
                  "binds. Bind with ferry::closure(fn, values...) instead, which ships fn and serializes "
                  "the values, passed before the call's arguments: "
                  "ferry::closure([](int a, int b) { return a + b; }, 1)");
    static_assert(!detail::is_std_function<D>,
                  "ferry: a std::function cannot be shipped: it hides the type of what it holds, and "
                  "that type is how ferry finds the code in another process. Pass the lambda or "
                  "function itself, or hold it in a ferry::function, which ships");
    static_assert(detail::shippable<D> || detail::reflected_aggregate<D> || std::is_member_pointer_v<D> ||
                      std::is_bind_expression_v<D> || detail::is_std_function<D>,
                  FERRY_NOT_SHIPPABLE_MESSAGE);
    // An aggregate whose fields cannot ship (check_reflectable says which)
    // is not copied either, so that its message is the only one.
    constexpr bool fields_ship = [] {
      if constexpr (detail::reflected_aggregate<D>) return detail::reflectable<D>();
      else return true;
    }();
    // A callable that cannot be copied (a closure capturing a
    // std::unique_ptr) is held by moving it in; given as an lvalue, it
    // would have to be copied.
    static_assert(std::is_constructible_v<D, F&&> || !detail::shippable<D> || !fields_ship,
                  "ferry: this callable cannot be copied (a ferry::closure capturing a std::unique_ptr, "
                  "say), and it was given as an lvalue, which would copy it: pass it with std::move, or "
                  "make a ferry::function of it once and pass that, whose copies share the callable");
    if constexpr (detail::shippable<D> && fields_ship && std::is_constructible_v<D, F&&>) {
      // else only an assertion above is reported
      if constexpr (detail::function_pointer<D>) {
        if (f == nullptr) return;
      }
      // Odr-use the registration so that the module registers D when it loads.
      static_cast<void>(&detail::registration<D, R(Args...)>::entry);
      impl_.reset(detail::model_maker<D, R, Args...>::make(D(std::forward<F>(f))));
    }
  }

  // A callable that can only be called as non-const (a mutable lambda):
  // ferry calls the held callable through const, as std::function's
  // copies may run it concurrently. Fails to compile, saying so.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function> &&
             !std::is_invocable_r_v<R, const std::decay_t<F>&, Args...> &&
             std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
  function(F&&) {  // NOLINT(google-explicit-constructor)
    static_assert(sizeof(F) == 0,
                  "ferry::function calls its callable through const, and this one can only be called "
                  "as non-const (a mutable lambda?). Drop `mutable`, or keep changing state in the "
                  "arguments and the result: a shipped callable's state does not come back.");
  }

  explicit operator bool() const noexcept { return impl_ != nullptr; }

  // Calls the held callable. Throws ferry::bad_function_call if empty, and
  // whatever the callable throws.
  R operator()(Args... args) const {
    if (!impl_) throw bad_function_call();
    return impl_->call(std::forward<Args>(args)...);
  }

  // cereal: see the file comment. load() throws ferry::format_error and the
  // errors of ferry::loads.
  void save(output_archive& ar) const {
    if (!impl_) {
      ar(static_cast<std::uint8_t>(wire::function_tag::empty));
      return;
    }
    detail::depth_guard depth(ar);
    impl_->save(ar);
  }

  void load(input_archive& ar) {
    const wire::function_tag tag = detail::read_function_tag(ar);
    if (tag == wire::function_tag::empty) {
      impl_.reset();
      return;
    }
    detail::depth_guard depth(ar);
    if (tag == wire::function_tag::pointer) {
      using pointer = R (*)(Args...);
      const void* code = detail::read_pointer_record(ar, typeid(R(Args...)).name());
      impl_.reset(detail::model_maker<pointer, R, Args...>::make(
          reinterpret_cast<pointer>(const_cast<void*>(code))));
      return;
    }
    const detail::registry_entry& entry = detail::read_entry(ar, tag, typeid(R(Args...)).name());
    // The entry is for this signature (read_entry checked), so this is a base.
    impl_.reset(static_cast<const base*>(entry.make(ar)));
  }

  friend void swap(function& a, function& b) noexcept { a.impl_.swap(b.impl_); }

 private:
  detail::callable_ref<const base> impl_;
};

}  // namespace ferry

#endif  // FERRY_SERIALIZE_FUNCTION_H_
