// Copyright ferry authors.
//
// Must NOT compile: a ferry::closure capture without a default constructor
// cannot be rebuilt by the receiver; the message must name the capture.
#include <serialize/serialize.h>

struct meters {
  explicit meters(double v) : value(v) {}
  double value;
  template <class Archive>
  void serialize(Archive& ar) { ar(value); }
};

int main() {
  ferry::function<double(double)> f =
      ferry::closure([](const meters& m, double x) { return m.value * x; }, meters(2.0));
  return f ? 0 : 1;
}
