/// @file armlower/kernels.hpp
/// Aggregate header of the firmware-clean kernels (int8, a16w8, RESCALE, MX).
#pragma once

#include <armlower/kernels/status.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/rescale.hpp>
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/matmul.hpp>
#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/kernels/mx/cast_from_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled_packed.hpp>
