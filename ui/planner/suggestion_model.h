// SuggestionModel: the values that would fix the current error, as buttons ("valid ep: 1 2 4 8 16").
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QString>

#include <cstdint>
#include <vector>

#include "planner_enums.h"

namespace meshscope::ui {

class SuggestionModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("SuggestionModel belongs to a PlanController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role { FieldRole = Qt::UserRole + 1, ValueRole, LabelRole };  // field: the input's name, "gpusPerNode"
    Q_ENUM(Role)

    struct Suggestion {
        PlanInput field = PlanInput::none;  // the input it sets
        std::int64_t value = 0;
    };

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(items_.size()); }
    [[nodiscard]] const Suggestion* at(int row) const;

    void set(std::vector<Suggestion> items);

signals:
    void countChanged();

private:
    std::vector<Suggestion> items_;
};

}  // namespace meshscope::ui
