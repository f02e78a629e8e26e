// What the cost of a layout depends on besides the layout: model, training and cluster.
#pragma once

#include <utility>

#include "meshscope/cost/cluster.h"
#include "meshscope/cost/model_spec.h"
#include "meshscope/cost/parameters.h"
#include "meshscope/cost/training.h"

namespace meshscope::cost {

struct CostInputs {
    ModelSpec model;
    TrainingSpec training;
    ClusterSpec cluster;
    ParameterCounts params;  // count_parameters(model), kept so ranking thousands of layouts counts once

    [[nodiscard]] static CostInputs make(ModelSpec model, TrainingSpec training, ClusterSpec cluster) {
        CostInputs in{std::move(model), training, std::move(cluster), {}};
        in.params = count_parameters(in.model);
        return in;
    }
};

}  // namespace meshscope::cost
