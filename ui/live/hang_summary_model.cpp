#include "hang_summary_model.h"

namespace meshscope::ui {

namespace {
QList<int> ranks_of(const std::vector<std::int64_t>& ranks) {
    QList<int> list;
    list.reserve(static_cast<qsizetype>(ranks.size()));
    for (const std::int64_t r : ranks) list << static_cast<int>(r);
    return list;
}

using R = HangPlace;
constexpr RowRole<R> roles[] = {
    {HangSummaryModel::StandingRole, "standing",
     [](const R& p) -> QVariant { return QString::fromStdString(std::string(to_string(p.standing))); }},
    {HangSummaryModel::DimRole, "dim", [](const R& p) -> QVariant { return QString::fromStdString(p.dim); }},
    {HangSummaryModel::SeqRole, "seq", [](const R& p) -> QVariant { return static_cast<int>(p.seq); }},
    {HangSummaryModel::OpRole, "op", [](const R& p) -> QVariant { return QString::fromStdString(p.op); }},
    {HangSummaryModel::RanksRole, "ranks", [](const R& p) -> QVariant { return static_cast<int>(p.ranks); }},
    {HangSummaryModel::SomeRanksRole, "someRanks", [](const R& p) { return QVariant::fromValue(ranks_of(p.some)); }},
    {HangSummaryModel::TextRole, "text", [](const R& p) -> QVariant { return QString::fromStdString(p.text); }},
};
static_assert(roles_in_order(roles));
}  // namespace

HangSummaryModel::HangSummaryModel(QObject* parent) : RowListModel(roles, TextRole, parent) {}

QString HangSummaryModel::text() const {
    return summary_ ? QString::fromStdString(summary_->text) : QString();
}

QList<int> HangSummaryModel::rootCause() const {
    return summary_ ? ranks_of(summary_->root_cause) : QList<int>();
}

void HangSummaryModel::setSummary(const std::optional<HangSummary>& summary) {
    if (summary == summary_) return;
    setRows(summary ? summary->places : std::vector<HangPlace>{}, [&] { summary_ = summary; });
    emit summaryChanged();
}

}  // namespace meshscope::ui
