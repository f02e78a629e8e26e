#include "phase_histogram_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

namespace {
QString phase_of_bucket(int bucket) {
    return bucket == 0 ? QString() : name_of(static_cast<Phase>(bucket - 1));
}

using R = PhaseBucketRow;
constexpr RowRole<R> roles[] = {
    {PhaseHistogramModel::PhaseRole, "phase", [](const R& r) -> QVariant { return phase_of_bucket(r.bucket); }},
    {PhaseHistogramModel::LabelRole, "label",
     [](const R& r) -> QVariant {
         return r.bucket == 0 ? QStringLiteral("not seen") : phase_of_bucket(r.bucket).replace('_', ' ');
     }},
    {PhaseHistogramModel::CountRole, "count", [](const R& r) -> QVariant { return r.count; }},
    {PhaseHistogramModel::FractionRole, "fraction",
     [](const R& r) -> QVariant { return r.maximum > 0 ? static_cast<double>(r.count) / r.maximum : 0.0; }},
};
static_assert(roles_in_order(roles));
}  // namespace

PhaseHistogramModel::PhaseHistogramModel(QObject* parent) : RowListModel(roles, LabelRole, parent) {
    setRows(rows_of());
}

std::vector<PhaseBucketRow> PhaseHistogramModel::rows_of() const {
    std::vector<PhaseBucketRow> rows;
    for (int bucket = 0; bucket < bucket_count; ++bucket)
        rows.push_back({bucket, counts_[static_cast<std::size_t>(bucket)], maximum()});
    return rows;
}

int PhaseHistogramModel::maximum() const {
    return *std::max_element(counts_.begin(), counts_.end());
}

void PhaseHistogramModel::setRanks(const std::vector<RankRow>& ranks) {
    std::array<int, bucket_count> counts{};
    for (const RankRow& r : ranks) ++counts[static_cast<std::size_t>(phase_index(r.phase) + 1)];
    if (counts == counts_) return;
    counts_ = counts;
    // Every bar's height is a fraction of the tallest: one change over all rows.
    mutableRows() = rows_of();
    emit dataChanged(index(0), index(bucket_count - 1));
    emit countsChanged();
}

int PhaseHistogramModel::countOf(int phase) const {
    const int bucket = phase + 1;
    return bucket < 0 || bucket >= bucket_count ? 0 : counts_[static_cast<std::size_t>(bucket)];
}

}  // namespace meshscope::ui
