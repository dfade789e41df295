// Copyright ferry authors.
//
// The message of the error an exception_ptr holds, checked to be of the
// expected type: for tests of code that hands errors back instead of
// throwing them.
#ifndef FERRY_TESTS_ERROR_MESSAGE_H_
#define FERRY_TESTS_ERROR_MESSAGE_H_

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace ferry_test {

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

}  // namespace ferry_test

#endif  // FERRY_TESTS_ERROR_MESSAGE_H_
