// meshscope.advice/1: the advice as JSON (docs/cost-model.md, "meshscope.advice/1"), and one layout's cost as
// the object `meshscope plan --format json` adds as "cost".
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>

#include "meshscope/cost/advice.h"

namespace meshscope::cost {

inline constexpr std::string_view advice_schema = "meshscope.advice/1";

[[nodiscard]] nlohmann::ordered_json layout_cost_json(const LayoutCost& cost);
// The model, training and cluster a cost was computed for.
[[nodiscard]] nlohmann::ordered_json inputs_json(const CostInputs& in);
// `show` ranked layouts at most; every excluded layout with its reason.
[[nodiscard]] nlohmann::ordered_json advice_json(const CostInputs& in, const Advice& advice, std::size_t show);

}  // namespace meshscope::cost
