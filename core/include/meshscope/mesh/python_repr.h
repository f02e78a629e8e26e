// Python's repr() of tuples and lists, because the messages we reproduce embed them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshscope::repr {

// (16, 1, 2), a 1-tuple as (8,)
[[nodiscard]] std::string int_tuple(std::span<const std::int64_t> values);
// ('dp', 'cp'), a 1-tuple as ('dp',)
[[nodiscard]] std::string str_tuple(std::span<const std::string> values);
// ['dp', 'cp']
[[nodiscard]] std::string str_list(std::span<const std::string> values);
// [(2,), (0, 1)]
[[nodiscard]] std::string int_tuple_list(const std::vector<std::vector<std::int64_t>>& values);
// 'name' with Python's quoting choice
[[nodiscard]] std::string str(const std::string& value);

}  // namespace meshscope::repr
