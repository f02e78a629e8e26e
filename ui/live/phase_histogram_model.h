// PhaseHistogramModel: how many ranks of the selected Job are in each phase now (their latest report),
// with "not seen" first for ranks that never reported. Fixed rows, so a view's bars only change height.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <array>
#include <vector>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct PhaseBucketRow {
    int bucket = 0;   // 0: not seen; then core's Phase + 1
    int count = 0;    // ranks in it
    int maximum = 0;  // the tallest bar's count
    friend bool operator==(const PhaseBucketRow&, const PhaseBucketRow&) = default;
};

class PhaseHistogramModel : public MESHSCOPE_ROW_LIST_MODEL(PhaseBucketRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PhaseHistogramModel belongs to a LiveSession")
    Q_PROPERTY(int maximum READ maximum NOTIFY countsChanged)  // the tallest bar

public:
    enum Role { PhaseRole = Qt::UserRole + 1, LabelRole, CountRole, FractionRole };
    Q_ENUM(Role)
    static constexpr int bucket_count = static_cast<int>(phase_count) + 1;  // "not seen", then core's Phase

    explicit PhaseHistogramModel(QObject* parent = nullptr);

    [[nodiscard]] int maximum() const;

    void setRanks(const std::vector<RankRow>& ranks);
    [[nodiscard]] Q_INVOKABLE int countOf(int phase) const;  // a Phase value; -1 for not seen

signals:
    void countsChanged();

private:
    [[nodiscard]] std::vector<PhaseBucketRow> rows_of() const;

    std::array<int, bucket_count> counts_{};
};

}  // namespace meshscope::ui
