#include "suggestion_model.h"

namespace meshscope::ui {

namespace {
using R = PlanSuggestion;
constexpr RowRole<R> roles[] = {
    {SuggestionModel::FieldRole, "field", [](const R& s) -> QVariant { return name_of(s.field); }},
    {SuggestionModel::ValueRole, "value", [](const R& s) { return QVariant::fromValue<qint64>(s.value); }},
    {SuggestionModel::LabelRole, "label", [](const R& s) -> QVariant { return QString::number(s.value); }},
};
static_assert(roles_in_order(roles));
}  // namespace

SuggestionModel::SuggestionModel(QObject* parent) : RowListModel(roles, LabelRole, parent) {}

const SuggestionModel::Suggestion* SuggestionModel::at(int row) const {
    return row >= 0 && row < count() ? &rows()[static_cast<std::size_t>(row)] : nullptr;
}

void SuggestionModel::set(std::vector<Suggestion> items) {
    if (items == rows()) return;
    setRows(std::move(items));
}

}  // namespace meshscope::ui
