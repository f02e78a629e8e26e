// SuggestionModel: the values that would fix the current error, as buttons ("valid ep: 1 2 4 8 16").
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QString>

#include <cstdint>
#include <vector>

#include "planner_enums.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct PlanSuggestion {
    PlanInput field = PlanInput::none;  // the input it sets
    std::int64_t value = 0;
    friend bool operator==(const PlanSuggestion&, const PlanSuggestion&) = default;
};

class SuggestionModel : public MESHSCOPE_ROW_LIST_MODEL(PlanSuggestion) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("SuggestionModel belongs to a PlanController")

public:
    enum Role { FieldRole = Qt::UserRole + 1, ValueRole, LabelRole };  // field: the input's name, "gpusPerNode"
    Q_ENUM(Role)

    using Suggestion = PlanSuggestion;

    explicit SuggestionModel(QObject* parent = nullptr);

    [[nodiscard]] const Suggestion* at(int row) const;

    void set(std::vector<Suggestion> items);
};

}  // namespace meshscope::ui
