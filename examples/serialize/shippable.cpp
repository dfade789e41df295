// Copyright ferry authors.
//
// One example of each way to make a callable shippable. docs/api/serialize.md
// shows the regions between "[snippet:NAME]" and "[end]"; the test suite
// builds and runs this file and compares its output with shippable.expected,
// so the documentation cannot drift from the code.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <serialize/serialize.h>

// [snippet:function-pointer]
namespace {
int add_one(int x) { return x + 1; }  // internal linkage is fine
}  // namespace

void function_pointer() {
  ferry::function<int(int)> f = &add_one;
  auto g = ferry::loads<ferry::function<int(int)>>(ferry::dumps(f));
  std::cout << g(41) << "\n";  // 42
}
// [end]

// [snippet:lambda]
void captureless_lambda() {
  ferry::function<std::string(const std::string&)> f = [](const std::string& s) {
    return s + "!";
  };
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))("hi") << "\n";  // hi!
}
// [end]

// [snippet:bitwise]
void bitwise_lambda() {
  int n = 3;
  double scale = 0.5;
  // Every capture is a plain value: its bytes are its state.
  ferry::function<double(int)> f = ferry::bitwise([n, scale](int x) { return (x + n) * scale; });
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))(7) << "\n";  // 5
}
// [end]

// [snippet:aggregate]
void local_aggregate() {
  struct histogram {  // defined inside a function, reflected field by field
    std::string name;
    std::vector<double> samples;
    std::map<std::string, int> tags;
    std::string operator()(double threshold) const {
      int above = 0;
      for (double s : samples) above += s > threshold;
      return name + ": " + std::to_string(above) + " above, tag " + std::to_string(tags.at("run"));
    }
  };
  ferry::function<std::string(double)> f = histogram{"latency", {1.5, 7.0, 9.5}, {{"run", 4}}};
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))(5.0) << "\n";  // latency: 2 above, tag 4
}
// [end]

// [snippet:cereal-class]
class threshold {
 public:
  threshold() = default;  // needed to load
  explicit threshold(int limit) : limit_(limit) {}
  bool operator()(int x) const { return x > limit_; }

  template <class Archive>
  void serialize(Archive& ar) {
    ar(limit_);
  }

 private:
  int limit_ = 0;
};

void cereal_class() {
  ferry::function<bool(int)> f = threshold(10);
  auto g = ferry::loads<decltype(f)>(ferry::dumps(f));
  std::cout << std::boolalpha << g(11) << " " << g(9) << "\n";  // true false
}
// [end]

// [snippet:local-class]
void local_class() {
  // A local class cannot have member templates: one overload per archive.
  class counter {
   public:
    counter() = default;
    explicit counter(int start) : start_(start) {}
    int operator()(int steps) const { return start_ + steps; }
    void serialize(ferry::output_archive& ar) { ar(start_); }
    void serialize(ferry::input_archive& ar) { ar(start_); }

   private:
    int start_ = 0;
  };
  ferry::function<int(int)> f = counter(100);
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))(5) << "\n";  // 105
}
// [end]

// [snippet:closure]
void closure_with_string() {
  std::string greeting = "hello";
  // [greeting](...) would not compile: a std::string cannot be copied bitwise.
  ferry::function<std::string(const std::string&)> f = ferry::closure(
      [](const std::string& g, const std::string& name) { return g + ", " + name; }, greeting);
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))("ferry") << "\n";  // hello, ferry
}
// [end]

// [snippet:nested]
void nested_functions() {
  ferry::function<int(int)> square = [](int x) { return x * x; };
  // A function is a capture like any other, so closures nest.
  ferry::function<int(int)> plus_one_after = ferry::closure(
      [](const ferry::function<int(int)>& inner, int x) { return inner(x) + 1; }, square);
  std::cout << ferry::loads<decltype(plus_one_after)>(ferry::dumps(plus_one_after))(6)
            << "\n";  // 37
}
// [end]

// [snippet:named]
void stable_name() {
  // Found by this name in whatever build of the module is loaded.
  ferry::function<double(double)> f = ferry::named<"examples.double_it.v1">([](double x) {
    return 2 * x;
  });
  std::cout << ferry::loads<decltype(f)>(ferry::dumps(f))(1.25) << "\n";  // 2.5

  // A closure of a named function takes its name; its captures travel as values.
  ferry::function<double(double)> scale = ferry::closure(
      ferry::named<"examples.scale_by.v1">([](double k, double x) { return k * x; }), 3.0);
  std::cout << ferry::loads<decltype(scale)>(ferry::dumps(scale))(1.25) << "\n";  // 3.75
}
// [end]

// [snippet:errors]
void errors() {
  std::string bytes = ferry::dumps(ferry::function<int(int)>(&add_one));
  bytes.resize(bytes.size() - 3);  // cut short
  try {
    ferry::loads<ferry::function<int(int)>>(bytes);
  } catch (const ferry::format_error& e) {
    std::cout << "format_error at offset " << e.offset() << "\n";  // format_error at offset 8
  }
}
// [end]

// [snippet:signed]
void signed_bytes() {
  // Kept secret by whoever persists or receives the bytes.
  const ferry::signing_key key = ferry::signing_key::generate();
  const int base = 100;
  ferry::function<int(int)> f = ferry::closure([](int base, int x) { return base + x; }, base);
  std::string bytes = ferry::dumps(f, key);  // HMAC-SHA256 appended
  std::cout << ferry::loads<decltype(f)>(bytes, key)(1) << "\n";  // 101

  bytes[20] ^= 1;  // changed on the way
  try {
    ferry::loads<decltype(f)>(bytes, key);  // nothing is decoded, no module opened
  } catch (const ferry::authentication_error&) {
    std::cout << "authentication_error\n";
  }
}
// [end]

int main() {
  function_pointer();
  captureless_lambda();
  bitwise_lambda();
  local_aggregate();
  cereal_class();
  local_class();
  closure_with_string();
  nested_functions();
  stable_name();
  errors();
  signed_bytes();
  return 0;
}
