// ClusterConstantsModel: the constants the Cost panel's numbers use that a cluster profile can set (the compute
// calibration, the NVLink and network bandwidths), one row each with its value and where it comes from: the
// user's cluster profile (`meshscope --cluster-profile FILE`, fitted by `meshscope calibrate`) or a preset.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QString>

#include <string>

#include "meshscope/cost/cluster_profile.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct ClusterConstantRow {
    cost::ClusterConstant constant;
    std::string file;  // the cluster profile's (ClusterConstants::file): a fitted constant's source names it
};

class ClusterConstantsModel : public MESHSCOPE_ROW_LIST_MODEL(ClusterConstantRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ClusterConstantsModel belongs to a PlanController")
    // "cluster profile cluster.json", or why it does not apply ("cluster profile cluster.json not used: the cluster
    // profile was fitted on h100; the cluster is h200"); "" without one.
    Q_PROPERTY(QString clusterProfileText READ clusterProfileText NOTIFY constantsChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1,  // core's: "calibration", "intra_node_gbps", "inter_node_gbps"
        LabelRole,                    // "NVLink bandwidth"
        ValueTextRole,                // "300 GB/s"
        SourceRole,                   // "fitted" (from the cluster profile) or "preset"
        FromClusterProfileRole,       // bool: SourceRole is "fitted"
        // "cluster profile cluster.json: 3 intra-node collective records from nccl.log" / "preset: h100 preset"
        SourceTextRole,
        SourceNameRole,  // "cluster profile" / "preset": the short form a narrow panel shows
    };
    Q_ENUM(Role)

    explicit ClusterConstantsModel(QObject* parent = nullptr);

    [[nodiscard]] QString clusterProfileText() const;

    void set(cost::ClusterConstants constants);
    void clear();

signals:
    void constantsChanged();

private:
    std::string file_;  // the cluster profile's; "" without one
    std::string note_;  // why it does not apply; "" when it does
};

}  // namespace meshscope::ui
