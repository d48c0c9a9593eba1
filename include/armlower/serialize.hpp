/// @file armlower/serialize.hpp
/// Aggregate header of TOSA flatbuffer serialization (writer, reader, verifier). Needs armlower::serialize.
#pragma once

