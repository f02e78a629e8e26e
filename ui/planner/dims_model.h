// DimsModel: one row per dim of a plan's meshes with its group counts, how its groups fall on nodes and the
// style the grid draws it in. The legend is one (the shown mesh's dims); the summary another (every dim).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QColor>
#include <QString>

#include <memory>
#include <vector>

#include "meshscope/mesh/plan.h"

namespace meshscope::ui {

class DimsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("DimsModel belongs to a PlanController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        MeshRole = Qt::UserRole + 1,
        DimRole,
        SizeRole,
        GroupsRole,
        CrossNodeGroupsRole,
        MaxNodesRole,
        SpanTextRole,  // "each within one node" / "2 of 4 leave a node (up to 2 nodes)"
        ColorRole,
        StyleTextRole,  // "frame", "band", "ring"
        SwatchFillRole,
        SwatchBorderWidthRole,
        ShownRole,  // all of this dim's groups are drawn
    };
    Q_ENUM(Role)

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }

    // mesh: "expert", "data" or empty for every mesh of the plan.
    void set_plan(const std::shared_ptr<const Plan>& plan, const QString& mesh);
    void set_shown_dim(const QString& dim);

signals:
    void countChanged();

private:
    std::vector<DimSpan> rows_;
    QString shown_dim_;
};

}  // namespace meshscope::ui
