// What a plan is exported as: the plan JSON (schema meshscope.plan/1), a LlamaFactory config snippet and a
// torchrun command line. One writer per format, so `meshscope plan --format json|yaml|torchrun`, the
// desktop planner and the collector's GET /api/v1/plan/export give the same bytes.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "meshscope/mesh/plan.h"

namespace meshscope {

enum class PlanExportFormat { json, yaml, torchrun };

// "json", "yaml", "torchrun"
[[nodiscard]] std::string_view to_string(PlanExportFormat format) noexcept;
[[nodiscard]] std::optional<PlanExportFormat> parse_plan_export_format(std::string_view text) noexcept;

// cp_size and dist_config {name: fsdpturbo, ep_size}: the keys LlamaFactory v1 reads for this layout, under a
// comment line that names the layout.
void write_llamafactory_yaml(std::ostream& out, const Plan& plan);
// torchrun for the cluster shape, with <PLACEHOLDERS> for what a plan cannot know (master address, job id,
// script, config); --standalone on one node; a comment when the world does not fill its nodes.
void write_torchrun_command(std::ostream& out, const Plan& plan);
// The whole export: the plan JSON with every group and rank (write_plan_json's defaults), or one of the above.
void write_plan_export(std::ostream& out, const Plan& plan, PlanExportFormat format);
[[nodiscard]] std::string plan_export(const Plan& plan, PlanExportFormat format);

}  // namespace meshscope
