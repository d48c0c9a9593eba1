/// @file armlower/quant.hpp
/// Aggregate header of the quant module: scale to multiplier/shift, requantization.
#pragma once

#include <armlower/quant/multiplier.hpp>
#include <armlower/quant/requantize.hpp>
