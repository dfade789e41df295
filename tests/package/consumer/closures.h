#ifndef CONSUMER_CLOSURES_H_
#define CONSUMER_CLOSURES_H_

#include <string>

#include <serialize/function.h>

// A closure made from a lambda local to this function of the consumer's library.
ferry::function<std::string(std::string)> make_greeter(std::string greeting);

#endif  // CONSUMER_CLOSURES_H_
