// RankedLayoutsModel: core's advice for a world (cost::advise) as a table: every layout that fits, fastest
// communication first, then every excluded one with core's reason. The row of the plan's own layout is marked.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QString>

#include <optional>

#include "meshscope/cost/advice.h"

namespace meshscope::ui {

class RankedLayoutsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RankedLayoutsModel belongs to a PlanController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(int rankedCount READ rankedCount NOTIFY countChanged)
    Q_PROPERTY(int excludedCount READ excludedCount NOTIFY countChanged)
    Q_PROPERTY(int currentRow READ currentRow NOTIFY currentChanged)  // the plan's layout; -1 when not listed

public:
    enum Role {
        RankRole = Qt::UserRole + 1,  // 1 for the fastest that fits; 0 for an excluded layout
        DpRole,
        CpRole,
        EpRole,
        EfsdpRole,
        FitsRole,
        SecondsRole,        // the step time the ranking sorts by
        TimeTextRole,       // the step: "3.21 ms", "1.52 s"; "" when excluded
        IntraNodeTextRole,  // "1.20 ms"
        InterNodeTextRole,  // "2.01 ms"
        MemoryTextRole,     // "61.2 GiB"
        HeadroomTextRole,   // "65.7 GiB"
        ReasonRole,         // core's reason an excluded layout was left out; "" when it fits
        CurrentRole,        // the plan shows this layout
        ExposedTextRole,    // exposed communication of the step: "1.02 s"
        TokensTextRole,     // tokens/s per GPU: "6742"
        MfuTextRole,        // "15.7%"
    };
    Q_ENUM(Role)

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return rankedCount() + excludedCount(); }
    [[nodiscard]] int rankedCount() const { return static_cast<int>(advice_.ranked.size()); }
    [[nodiscard]] int excludedCount() const { return static_cast<int>(advice_.excluded.size()); }
    [[nodiscard]] int currentRow() const { return current_row_; }

    // The layout of a row; nullopt outside the table.
    [[nodiscard]] std::optional<Topology> layout(int row) const;

    void set(cost::Advice advice);
    void clear();
    // Marks the row whose (dp, cp, ep) is the plan's.
    void set_current(const std::optional<Topology>& layout);

signals:
    void countChanged();
    void currentChanged();

private:
    void reset(cost::Advice advice);
    [[nodiscard]] int row_of(const Topology& layout) const;

    cost::Advice advice_;
    std::optional<Topology> current_;
    int current_row_ = -1;
};

}  // namespace meshscope::ui
