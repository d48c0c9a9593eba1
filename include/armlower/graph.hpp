/// @file armlower/graph.hpp
/// Aggregate header of the graph module: host IR and constants.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/graph/constant.hpp>
