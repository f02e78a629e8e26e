// PeerGroupsModel: one framework's ep groups for one shape (core's peer_layout), one row per group in the
// framework's creation order: its ranks, whether they span more than one node, and whether it holds the rank
// the learner picked. A shape the framework refuses leaves no rows and its exact message in `error`.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QList>

#include <vector>

#include "meshscope/mesh/peer_layout.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct PeerGroupRow {
    QList<int> ranks;
    bool cross_node = false;
    bool selected = false;  // holds the rank the learner picked
};

class PeerGroupsModel : public MESHSCOPE_ROW_LIST_MODEL(PeerGroupRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PeerGroupsModel belongs to a PeersModel")
    Q_PROPERTY(QString framework READ framework CONSTANT)  // core's name: "torchtitan"
    Q_PROPERTY(QString title READ title CONSTANT)          // "TorchTitan"
    Q_PROPERTY(QString error READ error NOTIFY groupsChanged)
    Q_PROPERTY(int crossNodeCount READ crossNodeCount NOTIFY groupsChanged)
    Q_PROPERTY(QString selectedGroupText READ selectedGroupText NOTIFY groupsChanged)  // "[0, 2]", "" for none

public:
    enum Role { RanksRole = Qt::UserRole + 1, RanksTextRole, CrossNodeRole, SelectedRole };
    Q_ENUM(Role)

    explicit PeerGroupsModel(Framework framework, QObject* parent = nullptr);

    [[nodiscard]] QString framework() const;
    [[nodiscard]] QString title() const;
    [[nodiscard]] QString error() const { return error_; }
    [[nodiscard]] int crossNodeCount() const;
    [[nodiscard]] QString selectedGroupText() const;
    // The row of the group holding `rank`; -1 for none.
    [[nodiscard]] Q_INVOKABLE int groupOf(int rank) const;

    void set_shape(const PeerShape& shape);
    void set_selected_rank(int rank);

signals:
    void groupsChanged();

private:
    Framework framework_;
    QString error_;
    int selected_rank_ = -1;
};

[[nodiscard]] QString framework_title(Framework framework);  // "FSDPTurbo", "TorchTitan", "Megatron-Core"

}  // namespace meshscope::ui
