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

namespace {
QVariantList ranks_list(const FindingRow& row) {
    QVariantList ranks;
    ranks.reserve(row.ranks.size());
    for (int r : row.ranks) ranks << r;
    return ranks;
}

using R = FindingRow;
constexpr RowRole<R> roles[] = {
    {FindingsModel::IdRole, "findingId", [](const R& r) -> QVariant { return r.id; }},
    {FindingsModel::KindRole, "kind", [](const R& r) -> QVariant { return r.kind; }},
    {FindingsModel::RanksRole, "ranks", [](const R& r) -> QVariant { return ranks_list(r); }},
    {FindingsModel::RanksTextRole, "ranksText", [](const R& r) -> QVariant { return ranks_text(r.ranks); }},
    {FindingsModel::RankCountRole, "rankCount",
     [](const R& r) -> QVariant { return static_cast<int>(r.ranks.size()); }},
    {FindingsModel::MessageRole, "message", [](const R& r) -> QVariant { return r.message; }},
    {FindingsModel::FixRole, "fix", [](const R& r) -> QVariant { return r.fix; }},
    {FindingsModel::FromRole, "from", [](const R& r) -> QVariant { return r.from; }},
};
static_assert(roles_in_order(roles));
}  // namespace

FindingsModel::FindingsModel(QObject* parent) : RowListModel(roles, KindRole, parent) {}

void FindingsModel::setFindings(std::vector<FindingRow> rows) {
    std::stable_sort(rows.begin(), rows.end(), before);
    updateRows(
        std::move(rows), [](const FindingRow& a, const FindingRow& b) { return a.id == b.id; }, RowChanges::each);
}

void FindingsModel::upsert(FindingRow row) {
    const int existing = rowOf(row.id);
    if (existing >= 0) {
        FindingRow& old = rowAt(existing);
        if (old == row) return;
        // The first rank may change the order: remove and insert again only then.
        if (old.kind == row.kind && old.ranks.value(0, -1) == row.ranks.value(0, -1)) {
            old = std::move(row);
            emit dataChanged(index(existing), index(existing));
            return;
        }
        remove(old.id);
    }
    const auto at = std::upper_bound(rows().begin(), rows().end(), row, before);
    insertRowAt(static_cast<int>(at - rows().begin()), std::move(row));
}

void FindingsModel::remove(const QString& id) {
    const int row = rowOf(id);
    if (row < 0) return;
    removeRowAt(row);
}

int FindingsModel::rowOf(const QString& id) const {
    const auto it = std::find_if(rows().begin(), rows().end(), [&](const FindingRow& r) { return r.id == id; });
    return it == rows().end() ? -1 : static_cast<int>(it - rows().begin());
}

QString FindingsModel::kindAt(int row) const {
    return row >= 0 && row < count() ? rows()[static_cast<std::size_t>(row)].kind : QString();
}

}  // namespace meshscope::ui
