// RankedLayoutsModel: core's advice for a world (cost::advise) as a table: every layout that fits, fastest
// communication first, then every excluded one with core's reason. The row of the plan's own layout is marked.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QString>

#include <optional>
#include <string>

#include "meshscope/cost/advice.h"
#include "row_list_model.h"

namespace meshscope::ui {

// A layout of core's advice: a ranked one with its cost, or an excluded one with core's reason.
struct RankedLayoutRow {
    int rank = 0;  // 1 for the fastest that fits; 0 for an excluded layout
    Topology topology;
    std::optional<cost::LayoutCost> cost;  // none when excluded
    std::string reason;
    bool current = false;  // the plan shows this layout
};

class RankedLayoutsModel : public MESHSCOPE_ROW_LIST_MODEL(RankedLayoutRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RankedLayoutsModel belongs to a PlanController")
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

    explicit RankedLayoutsModel(QObject* parent = nullptr);

    [[nodiscard]] int rankedCount() const { return ranked_count_; }
    [[nodiscard]] int excludedCount() const { return count() - ranked_count_; }
    [[nodiscard]] int currentRow() const { return current_row_; }

    // The layout of a row; nullopt outside the table.
    [[nodiscard]] std::optional<Topology> layout(int row) const;

    void set(cost::Advice advice);
    void clear();
    // Marks the row whose (dp, cp, ep) is the plan's.
    void set_current(const std::optional<Topology>& layout);

signals:
    void currentChanged();

private:
    void reset(cost::Advice advice);
    [[nodiscard]] int row_of(const Topology& layout) const;

    int ranked_count_ = 0;
    std::optional<Topology> current_;
    int current_row_ = -1;
};

}  // namespace meshscope::ui
