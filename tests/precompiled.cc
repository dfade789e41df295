// Copyright ferry authors.
//
// Empty: the translation unit whose compile makes the test programs'
// precompiled header (tests/ferry_add_test.cmake).
