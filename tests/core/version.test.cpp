// ARMLOWER_VERSION agrees with the CMake project version, and the umbrella header compiles alone.
#include <armlower/armlower.hpp>
#include <doctest/doctest.h>

#include <string>

TEST_CASE("ARMLOWER_VERSION matches the CMake project version") {
  const std::string v = std::to_string(ARMLOWER_VERSION_MAJOR) + "." +
                        std::to_string(ARMLOWER_VERSION_MINOR) + "." +
                        std::to_string(ARMLOWER_VERSION_PATCH);
  CHECK(v == ARMLOWER_CMAKE_VERSION);
}
