// ClusterConstantsModel: the constants the Cost panel's numbers use that a cluster profile can set (the compute
// calibration, the NVLink and network bandwidths), one row each with its value and where it comes from: the
// user's cluster profile (`meshscope --cluster-profile FILE`, fitted by `meshscope calibrate`) or a preset.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QString>

#include "meshscope/cost/cluster_profile.h"

namespace meshscope::ui {

class ClusterConstantsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ClusterConstantsModel belongs to a PlanController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
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

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(constants_.constants.size()); }
    [[nodiscard]] QString clusterProfileText() const;

    void set(cost::ClusterConstants constants);
    void clear();

signals:
    void countChanged();
    void constantsChanged();

private:
    [[nodiscard]] QString source_text(const cost::ClusterConstant& constant) const;

    cost::ClusterConstants constants_;
};

}  // namespace meshscope::ui
