#include "meshscope/mesh/peer_json.h"

#include <nlohmann/json.hpp>

namespace meshscope {

nlohmann::json peers_to_json(const PeerShape& shape, std::span<const PeerOutcome> outcomes) {
    using nlohmann::json;
    json frameworks = json::array();
    for (const auto& outcome : outcomes) {
        json entry{{"framework", to_string(outcome.framework)}};
        if (outcome.layout) {
            json dims = json::array();
            for (const auto& dim : outcome.layout->dims)
                dims.push_back(
                    {{"name", dim.name}, {"groups", dim.groups}, {"cross_node_groups", dim.cross_node_groups}});
            entry["dims"] = std::move(dims);
        } else if (outcome.error) {
            entry["error"] = {{"type", python_name(outcome.error->type())}, {"message", outcome.error->message()}};
        }
        frameworks.push_back(std::move(entry));
    }
    return json{{"schema", peers_schema},
                {"world", shape.world},
                {"cp", shape.cp},
                {"ep", shape.ep},
                {"gpus_per_node", shape.gpus_per_node},
                {"frameworks", std::move(frameworks)}};
}

}  // namespace meshscope
