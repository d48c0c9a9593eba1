/// @file armlower/passes.hpp
/// Aggregate header of the lowering passes and pipelines.
#pragma once

#include <armlower/passes/result.hpp>
#include <armlower/passes/emit.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/quantize_float.hpp>
#include <armlower/passes/decompose_linear.hpp>
#include <armlower/passes/rewrite_mxfp_linear.hpp>
#include <armlower/passes/validate.hpp>
#include <armlower/passes/pipeline.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/passes/cortex_m_emit.hpp>
