/// @file armlower/serialize.hpp
/// Aggregate header of TOSA flatbuffer serialization (writer, reader, verifier). Needs armlower::serialize.
#pragma once

#include <armlower/serialize/error.hpp>
#include <armlower/serialize/format.hpp>
#include <armlower/serialize/reader.hpp>
#include <armlower/serialize/visitor.hpp>
#include <armlower/serialize/writer.hpp>
