// RankPositionModel: where the selected rank stands in a hang its records show (its position, hang_position.h):
// the place (the group's label, the standing, seq and op in core's words, whether it is the root cause) as
// properties, and its last collectives, one per group it called, latest first, as rows: dim, group, seq, op and
// whether every member of the group reached it. Empty, with `placed` false, when no rank is selected or the
// selected one has no position.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <optional>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

class RankPositionModel : public MESHSCOPE_ROW_LIST_MODEL(RecordsCall) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RankPositionModel belongs to a LiveSession: session.view.position")
    Q_PROPERTY(int rank READ rank NOTIFY positionChanged)              // -1: none selected
    Q_PROPERTY(bool placed READ placed NOTIFY positionChanged)         // the rank has a position
    Q_PROPERTY(QString standing READ standing NOTIFY positionChanged)  // core's: "waiting", "no_record", ...
    Q_PROPERTY(QString label READ label NOTIFY positionChanged)        // "ep group 3 [12, 13, 14, 15]"
    Q_PROPERTY(QString dim READ dim NOTIFY positionChanged)
    Q_PROPERTY(int seq READ seq NOTIFY positionChanged)  // 0 where it has none
    Q_PROPERTY(QString op READ op NOTIFY positionChanged)
    Q_PROPERTY(bool rootCause READ rootCause NOTIFY positionChanged)
    // "waiting · ep group 3 [12, 13, 14, 15] · seq 2 · all_to_all · root cause": core's words, joined
    Q_PROPERTY(QString text READ text NOTIFY positionChanged)

public:
    enum Role {
        DimRole = Qt::UserRole + 1,  // "ep", "world"; empty when the group is not on the plan
        GroupRole,                   // -1 when the group is not on the plan
        SeqRole,
        OpRole,
        CompletedRole,  // bool: every member of the group reached it
        TextRole,       // "ep group 3 · seq 2 · all_to_all"
    };
    Q_ENUM(Role)

    explicit RankPositionModel(QObject* parent = nullptr);

    [[nodiscard]] int rank() const { return rank_; }
    [[nodiscard]] bool placed() const { return position_.has_value(); }
    [[nodiscard]] QString standing() const;
    [[nodiscard]] QString label() const;
    [[nodiscard]] QString dim() const;
    [[nodiscard]] int seq() const { return position_ ? static_cast<int>(position_->seq) : 0; }
    [[nodiscard]] QString op() const;
    [[nodiscard]] bool rootCause() const { return position_ && position_->root_cause; }
    [[nodiscard]] QString text() const;

    // The selected rank (null: none); resets only when its position changed.
    void setRank(const RankRow* rank);

signals:
    void positionChanged();

private:
    int rank_ = -1;
    std::optional<HangPosition> position_;
};

}  // namespace meshscope::ui
