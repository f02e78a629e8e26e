#include "suggestion_model.h"

namespace meshscope::ui {

int SuggestionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(items_.size());
}

QVariant SuggestionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Suggestion& s = items_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case FieldRole: return name_of(s.field);
        case ValueRole: return QVariant::fromValue<qint64>(s.value);
        case LabelRole:
        case Qt::DisplayRole: return QString::number(s.value);
        default: return {};
    }
}

QHash<int, QByteArray> SuggestionModel::roleNames() const {
    return {{FieldRole, "field"}, {ValueRole, "value"}, {LabelRole, "label"}};
}

const SuggestionModel::Suggestion* SuggestionModel::at(int row) const {
    return row >= 0 && row < count() ? &items_[static_cast<std::size_t>(row)] : nullptr;
}

void SuggestionModel::set(std::vector<Suggestion> items) {
    const bool same = items.size() == items_.size() &&
                      std::equal(items.begin(), items.end(), items_.begin(),
                                 [](const auto& a, const auto& b) { return a.field == b.field && a.value == b.value; });
    if (same) return;
    const int before = count();
    beginResetModel();
    items_ = std::move(items);
    endResetModel();
    if (before != count()) emit countChanged();
}

}  // namespace meshscope::ui
