/// @file armlower/mx.hpp
/// Aggregate header of the OCP MX module: FP8/FP6/FP4/MXINT8 elements, E8M0 scales, block scaling.
#pragma once

