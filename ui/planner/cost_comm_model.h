// CostCommModel: one layout's communication per optimizer step, one row per mesh dim that moves anything (size > 1
// and some collective), with its time inside a node or between nodes (a dim's groups cross the network or not:
// the time of a row is all one or all the other). Widths are fractions of the slowest dim's time.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QString>

#include <vector>

#include "meshscope/cost/layout_cost.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct CostCommRow {
    cost::DimCost dim;
    double share = 0;  // its time, a fraction of the slowest dim's
};

class CostCommModel : public MESHSCOPE_ROW_LIST_MODEL(CostCommRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("CostCommModel belongs to a PlanController")
    // "12.34 ms per step before overlap: inside nodes 1.20 ms, between nodes 11.14 ms"
    Q_PROPERTY(QString totalText READ totalText NOTIFY costChanged)
    Q_PROPERTY(double intraNodeSeconds READ intraNodeSeconds NOTIFY costChanged)
    Q_PROPERTY(double interNodeSeconds READ interNodeSeconds NOTIFY costChanged)
    // "step 2.43 s = compute 1.11 s + exposed communication 1.32 s · 6742 tokens/s per GPU · MFU 15.7% · grad-accum 4"
    Q_PROPERTY(QString stepText READ stepText NOTIFY costChanged)
    Q_PROPERTY(double computeSeconds READ computeSeconds NOTIFY costChanged)
    Q_PROPERTY(double exposedSeconds READ exposedSeconds NOTIFY costChanged)

public:
    enum Role {
        MeshRole = Qt::UserRole + 1,
        DimRole,
        SizeRole,
        InterNodeRole,  // its groups cross the network
        NodesRole,      // nodes a group spans
        SecondsRole,
        IntraNodeSecondsRole,
        InterNodeSecondsRole,
        IntraFractionRole,  // the inside-node segment's width, a fraction of the slowest dim's time
        InterFractionRole,
        TimeTextRole,         // "3.21 ms"
        LinkTextRole,         // "inside a node" / "across 2 nodes"
        CollectivesTextRole,  // "all_gather 7 × 3.4 MiB, reduce_scatter 4 × 3.5 MiB"
        ExposedSecondsRole,   // what the step waits for after the overlap rules
        ExposedTextRole,      // "1.20 ms exposed"
    };
    Q_ENUM(Role)

    explicit CostCommModel(QObject* parent = nullptr);

    [[nodiscard]] QString totalText() const;
    [[nodiscard]] double intraNodeSeconds() const { return intra_seconds_; }
    [[nodiscard]] double interNodeSeconds() const { return inter_seconds_; }
    [[nodiscard]] QString stepText() const;
    [[nodiscard]] double computeSeconds() const { return step_.compute.seconds; }
    [[nodiscard]] double exposedSeconds() const { return step_.exposed_seconds; }

    void set(const cost::LayoutCost& cost);
    void clear();

signals:
    void costChanged();

private:
    void reset(std::vector<cost::DimCost> dims, bool shown, double intra, double inter, cost::StepCost step);

    bool shown_ = false;
    double intra_seconds_ = 0;
    double inter_seconds_ = 0;
    cost::StepCost step_;
};

// "3.21 ms": seconds as milliseconds with two decimals, as `meshscope advise` prints them; "40.62 s" from a second.
[[nodiscard]] QString ms_text(double seconds);

}  // namespace meshscope::ui
