#include "closures.h"

#include <serialize/closure.h>

ferry::function<std::string(std::string)> make_greeter(std::string greeting) {
  return ferry::closure([](const std::string& g, std::string name) { return g + " " + name; },
                        std::move(greeting));
}
