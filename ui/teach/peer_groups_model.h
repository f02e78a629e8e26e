// PeerGroupsModel: one framework's ep groups for one shape (core's peer_layout), one row per group in the
// framework's creation order: its ranks, whether they span more than one node, and whether it holds the rank
// the learner picked. A shape the framework refuses leaves no rows and its exact message in `error`.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QList>

#include <vector>

#include "meshscope/mesh/peer_layout.h"

namespace meshscope::ui {

class PeerGroupsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PeerGroupsModel belongs to a PeersModel")
    Q_PROPERTY(QString framework READ framework CONSTANT)  // core's name: "torchtitan"
    Q_PROPERTY(QString title READ title CONSTANT)          // "TorchTitan"
    Q_PROPERTY(QString error READ error NOTIFY groupsChanged)
    Q_PROPERTY(int count READ count NOTIFY groupsChanged)
    Q_PROPERTY(int crossNodeCount READ crossNodeCount NOTIFY groupsChanged)
    Q_PROPERTY(QString selectedGroupText READ selectedGroupText NOTIFY groupsChanged)  // "[0, 2]", "" for none

public:
    enum Role { RanksRole = Qt::UserRole + 1, RanksTextRole, CrossNodeRole, SelectedRole };
    Q_ENUM(Role)

    explicit PeerGroupsModel(Framework framework, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] QString framework() const;
    [[nodiscard]] QString title() const;
    [[nodiscard]] QString error() const { return error_; }
    [[nodiscard]] int count() const { return static_cast<int>(groups_.size()); }
    [[nodiscard]] int crossNodeCount() const;
    [[nodiscard]] QString selectedGroupText() const;
    // The row of the group holding `rank`; -1 for none.
    [[nodiscard]] Q_INVOKABLE int groupOf(int rank) const;

    void set_shape(const PeerShape& shape);
    void set_selected_rank(int rank);

signals:
    void groupsChanged();

private:
    struct Group {
        QList<int> ranks;
        bool cross_node = false;
    };

    Framework framework_;
    std::vector<Group> groups_;
    QString error_;
    int selected_rank_ = -1;
};

[[nodiscard]] QString framework_title(Framework framework);  // "FSDPTurbo", "TorchTitan", "Megatron-Core"

}  // namespace meshscope::ui
