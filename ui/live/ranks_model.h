// RanksModel: every rank of the selected Job (pending ones included), with its state, host, phase and the
// kinds of the findings that name it. Fed by full snapshots (GET .../ranks) and by rank_changed deltas of
// the change stream in between; both update rows in place so views keep their position.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QHash>

#include <optional>
#include <vector>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

class RanksModel : public MESHSCOPE_ROW_LIST_MODEL(RankRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RanksModel belongs to a LiveSession")

public:
    enum Role {
        RankRole = Qt::UserRole + 1,
        StateRole,  // core's name: "ready"
        HostRole,
        LocalRankRole,
        PhaseRole,
        StatusRole,
        FindingsRole,      // QStringList of finding kinds
        FindingsTextRole,  // "straggler, rank_error"
        ErrorRole,
        PlaceRole,  // where it stands in a hang: "waiting ep", "no record", "outside collectives"; empty without
    };
    Q_ENUM(Role)

    explicit RanksModel(QObject* parent = nullptr);

    void setRanks(std::vector<RankRow> rows);
    void clear() { setRanks({}); }
    // A rank_changed delta (no state: keep it). Returns false when the rank is not in the model (a snapshot
    // will bring it).
    bool applyRankChange(int rank, std::optional<RankStateKind> state, std::optional<Phase> phase);
    // Finding kinds per rank, recomputed from the findings list (the stream sends findings, not ranks).
    void setFindingKinds(const QHash<int, QStringList>& kinds);

    [[nodiscard]] const std::vector<RankRow>& ranks() const { return rows(); }
    [[nodiscard]] const RankRow* find(int rank) const;
    [[nodiscard]] int rowOf(int rank) const { return index_.value(rank, -1); }

private:
    void emit_row_changed(int row);

    QHash<int, int> index_;  // rank -> row
};

}  // namespace meshscope::ui
