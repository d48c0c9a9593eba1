/// @file armlower/armlower.hpp
/// Umbrella header: every hosted part of armlower except flatbuffers-based serialization
/// (`<armlower/serialize.hpp>`, target armlower::serialize), the importers (`<armlower/import.hpp>`)
/// and file I/O (`<armlower/io.hpp>`, `<armlower/run/npy.hpp>`: .npy and atomic file writes, which
/// need <filesystem> and <fstream> — left out so the umbrella stays cheap to compile).
/// Firmware includes `<armlower/kernels.hpp>` (target armlower::kernels) instead.
#pragma once

#include <armlower/version.hpp>
#include <armlower/dtype.hpp>
#include <armlower/tosa.hpp>
#include <armlower/quant.hpp>
#include <armlower/mx.hpp>
#include <armlower/kernels.hpp>
#include <armlower/graph.hpp>
#include <armlower/passes.hpp>
#include <armlower/run.hpp>
#include <armlower/lower.hpp>
