#include "phase_histogram_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

namespace {
QString phase_of_bucket(int bucket) {
    return bucket == 0 ? QString() : name_of(static_cast<Phase>(bucket - 1));
}
}  // namespace

int PhaseHistogramModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : bucket_count;
}

QVariant PhaseHistogramModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const int bucket = index.row();
    switch (role) {
        case PhaseRole: return phase_of_bucket(bucket);
        case Qt::DisplayRole:
        case LabelRole: return bucket == 0 ? QStringLiteral("not seen") : phase_of_bucket(bucket).replace('_', ' ');
        case CountRole: return counts_[static_cast<std::size_t>(bucket)];
        case FractionRole: {
            const int max = maximum();
            return max > 0 ? static_cast<double>(counts_[static_cast<std::size_t>(bucket)]) / max : 0.0;
        }
        default: return {};
    }
}

QHash<int, QByteArray> PhaseHistogramModel::roleNames() const {
    return {{PhaseRole, "phase"}, {LabelRole, "label"}, {CountRole, "count"}, {FractionRole, "fraction"}};
}

int PhaseHistogramModel::maximum() const {
    return *std::max_element(counts_.begin(), counts_.end());
}

void PhaseHistogramModel::setRanks(const std::vector<RankRow>& ranks) {
    std::array<int, bucket_count> counts{};
    for (const RankRow& r : ranks) ++counts[static_cast<std::size_t>(phase_index(r.phase) + 1)];
    if (counts == counts_) return;
    counts_ = counts;
    emit dataChanged(index(0), index(bucket_count - 1));
    emit countsChanged();
}

int PhaseHistogramModel::countOf(int phase) const {
    const int bucket = phase + 1;
    return bucket < 0 || bucket >= bucket_count ? 0 : counts_[static_cast<std::size_t>(bucket)];
}

}  // namespace meshscope::ui
