// A pickle reader that accepts only the plain values Flight Recorder writes (dict, list, tuple, str, int, float,
// bool, None, bytes) and turns them into JSON: a small interpreter of those opcodes, never a general unpickler.
// GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID and every other opcode that would name or call Python code are
// refused, as are sets and other containers FR never writes. Tuples become arrays, bytes become strings (as
// latin-1 code points, so that any byte survives), ints beyond 64 bits are refused.
//
// A memo reference stands for a copy of its value (the reader shares it until one side grows), so a crafted
// pickle could ask for exponentially many values: the reader counts each reference as the copy it stands for,
// stops at max_values values and at max_depth levels of nesting, with an error naming the offset.
// read_fr_dump reads dumps with the same interpreter, without the JSON document.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"

namespace meshscope::records {

struct PickleLimits {
    std::size_t max_values = 1 << 24;
    std::size_t max_depth = 64;
};

// ValueError "{name} at byte {offset}: {what}" for anything it will not or cannot read.
[[nodiscard]] Expected<nlohmann::json> read_plain_pickle(std::string_view bytes, std::string_view name,
                                                         const PickleLimits& limits = {});

}  // namespace meshscope::records
