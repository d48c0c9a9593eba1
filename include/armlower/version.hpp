/// @file armlower/version.hpp
/// armlower's version: ARMLOWER_VERSION = major·100000 + minor·100 + patch (Boost style);
/// a test checks it against the CMake project version.
#pragma once

#define ARMLOWER_VERSION_MAJOR 0
#define ARMLOWER_VERSION_MINOR 1
#define ARMLOWER_VERSION_PATCH 0
#define ARMLOWER_VERSION (ARMLOWER_VERSION_MAJOR * 100000 + ARMLOWER_VERSION_MINOR * 100 + ARMLOWER_VERSION_PATCH)
