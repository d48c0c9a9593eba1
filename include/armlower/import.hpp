/// @file armlower/import.hpp
/// Aggregate header of the import module: the `.tflite` importer (needs flatbuffers).
#pragma once

#include <armlower/import/tflite.hpp>
