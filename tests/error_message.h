// Copyright ferry authors.
//
// The error an exception_ptr holds, or its message, checked to be of the
// expected type: for tests of code that hands errors back instead of
// throwing them.
#ifndef FERRY_TESTS_ERROR_MESSAGE_H_
#define FERRY_TESTS_ERROR_MESSAGE_H_

#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace ferry_test {

// What f() throws, or null when it returns: for message_of and caught_as.
template <class F>
std::exception_ptr thrown_by(F&& f) {
  try {
    f();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

// e's what(), as Error; a failure of the test (and "") when e is null or
// holds another type.
template <class Error>
std::string message_of(const std::exception_ptr& e) {
  if (!e) {
    ADD_FAILURE() << "no error";
    return {};
  }
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.what();
  } catch (const std::exception& other) {
    ADD_FAILURE() << "another error type: " << other.what();
  }
  return {};
}

// The error e holds, as Error, its fields to check: a failure of the test
// when it holds another type or none, and then std::logic_error, so that
// the test goes no further.
template <class Error>
Error caught_as(const std::exception_ptr& e) {
  if (!e) {
    ADD_FAILURE() << "no error, where " << typeid(Error).name() << " was expected";
    throw std::logic_error("no error");
  }
  try {
    std::rethrow_exception(e);
  } catch (const Error& typed) {
    return typed;
  } catch (const std::exception& other) {
    ADD_FAILURE() << "expected " << typeid(Error).name() << ", got " << typeid(other).name() << ": "
                  << other.what();
  }
  throw std::logic_error("an error of another type");
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_ERROR_MESSAGE_H_
