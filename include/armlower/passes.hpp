/// @file armlower/passes.hpp
/// Aggregate header of the lowering passes and pipelines.
#pragma once

