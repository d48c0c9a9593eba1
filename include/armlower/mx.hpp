/// @file armlower/mx.hpp
/// Aggregate header of the OCP MX module: FP8/FP6/FP4/MXINT8 elements, E8M0 scales, block scaling.
#pragma once

#include <armlower/mx/bf16.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/mx/packed.hpp>
#include <armlower/mx/quantize.hpp>
#include <armlower/mx/scale.hpp>
#include <armlower/mx/status.hpp>
