// FindingsModel: the findings of the selected Job (kind, ranks, message, fix, and for one read from records
// the "From: ..." line naming them), in the collector's order
// (kind, then first rank). Fed by snapshots (GET .../findings) and by finding_added / finding_updated /
// finding_removed deltas of the change stream.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <vector>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

class FindingsModel : public MESHSCOPE_ROW_LIST_MODEL(FindingRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("FindingsModel belongs to a LiveSession")

public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        KindRole,
        RanksRole,
        RanksTextRole,
        RankCountRole,
        MessageRole,
        FixRole,
        FromRole
    };
    Q_ENUM(Role)

    explicit FindingsModel(QObject* parent = nullptr);

    void setFindings(std::vector<FindingRow> rows);
    void clear() { setFindings({}); }
    // Deltas; an update of an unknown id adds it, a removal of an unknown id does nothing.
    void upsert(FindingRow row);
    void remove(const QString& id);

    [[nodiscard]] const std::vector<FindingRow>& findings() const { return rows(); }
    [[nodiscard]] int rowOf(const QString& id) const;
    [[nodiscard]] Q_INVOKABLE QString kindAt(int row) const;
};

}  // namespace meshscope::ui
