/// @file armlower/run.hpp
/// Aggregate header of the TOSA graph interpreter. Reading and writing interpreter values as
/// .npy files is `<armlower/run/npy.hpp>` (file I/O, like `<armlower/io.hpp>`, is not part of the
/// aggregate headers: it needs <filesystem> and <fstream>).
#pragma once

#include <armlower/run/error.hpp>
#include <armlower/run/interpreter.hpp>
#include <armlower/run/value.hpp>
