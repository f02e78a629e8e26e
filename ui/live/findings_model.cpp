#include "findings_model.h"

#include <QVariantList>

#include <algorithm>

#include "meshscope/monitor/finding.h"

namespace meshscope::ui {

namespace {
// The collector's order: kind (core's FindingKind order), then first rank, then id.
int kind_order(const QString& kind) {
    const auto parsed = parse_finding_kind(kind.toStdString());
    return parsed ? static_cast<int>(*parsed) : static_cast<int>(finding_kind_count);
}

bool before(const FindingRow& a, const FindingRow& b) {
    const int ka = kind_order(a.kind);
    const int kb = kind_order(b.kind);
    if (ka != kb) return ka < kb;
    const int ra = a.ranks.isEmpty() ? -1 : a.ranks.front();
    const int rb = b.ranks.isEmpty() ? -1 : b.ranks.front();
    if (ra != rb) return ra < rb;
    return a.id < b.id;
}
}  // namespace

int FindingsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const FindingRow& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case IdRole: return row.id;
        case Qt::DisplayRole:
        case KindRole: return row.kind;
        case RanksRole: {
            QVariantList ranks;
            ranks.reserve(row.ranks.size());
            for (int r : row.ranks) ranks << r;
            return ranks;
        }
        case RanksTextRole: return ranks_text(row.ranks);
        case RankCountRole: return static_cast<int>(row.ranks.size());
        case MessageRole: return row.message;
        case FixRole: return row.fix;
        case FromRole: return row.from;
        default: return {};
    }
}

QHash<int, QByteArray> FindingsModel::roleNames() const {
    return {{IdRole, "findingId"},        {KindRole, "kind"},       {RanksRole, "ranks"}, {RanksTextRole, "ranksText"},
            {RankCountRole, "rankCount"}, {MessageRole, "message"}, {FixRole, "fix"},     {FromRole, "from"}};
}

void FindingsModel::setFindings(std::vector<FindingRow> rows) {
    std::stable_sort(rows.begin(), rows.end(), before);
    const bool same_ids = std::equal(rows.begin(), rows.end(), rows_.begin(), rows_.end(),
                                     [](const FindingRow& a, const FindingRow& b) { return a.id == b.id; });
    if (same_ids) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i] == rows_[i]) continue;
            rows_[i] = std::move(rows[i]);
            emit dataChanged(index(static_cast<int>(i)), index(static_cast<int>(i)));
        }
        return;
    }
    const bool count_changed = rows.size() != rows_.size();
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    if (count_changed) emit countChanged();
}

void FindingsModel::upsert(FindingRow row) {
    const int existing = rowOf(row.id);
    if (existing >= 0) {
        FindingRow& old = rows_[static_cast<std::size_t>(existing)];
        if (old == row) return;
        // The first rank may change the order: remove and insert again only then.
        if (old.kind == row.kind && old.ranks.value(0, -1) == row.ranks.value(0, -1)) {
            old = std::move(row);
            emit dataChanged(index(existing), index(existing));
            return;
        }
        remove(old.id);
    }
    const auto at = std::upper_bound(rows_.begin(), rows_.end(), row, before);
    const int position = static_cast<int>(at - rows_.begin());
    beginInsertRows({}, position, position);
    rows_.insert(at, std::move(row));
    endInsertRows();
    emit countChanged();
}

void FindingsModel::remove(const QString& id) {
    const int row = rowOf(id);
    if (row < 0) return;
    beginRemoveRows({}, row, row);
    rows_.erase(rows_.begin() + row);
    endRemoveRows();
    emit countChanged();
}

int FindingsModel::rowOf(const QString& id) const {
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const FindingRow& r) { return r.id == id; });
    return it == rows_.end() ? -1 : static_cast<int>(it - rows_.begin());
}

QString FindingsModel::kindAt(int row) const {
    return row >= 0 && row < count() ? rows_[static_cast<std::size_t>(row)].kind : QString();
}

}  // namespace meshscope::ui
