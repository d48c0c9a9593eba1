/// @file armlower/dtype.hpp
/// Aggregate header of the dtype module: TOSA element types, traits, lattice, torch names.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/float16.hpp>
#include <armlower/dtype/lattice.hpp>
#include <armlower/dtype/dispatch.hpp>
#include <armlower/dtype/torch.hpp>
