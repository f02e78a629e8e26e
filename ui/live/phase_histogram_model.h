// PhaseHistogramModel: how many ranks of the selected Job are in each phase now (their latest report),
// with "not seen" first for ranks that never reported. Fixed rows, so a view's bars only change height.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>

#include <array>
#include <vector>

#include "live_rows.h"

namespace meshscope::ui {

class PhaseHistogramModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PhaseHistogramModel belongs to a LiveSession")
    Q_PROPERTY(int maximum READ maximum NOTIFY countsChanged)  // the tallest bar

public:
    enum Role { PhaseRole = Qt::UserRole + 1, LabelRole, CountRole, FractionRole };
    Q_ENUM(Role)
    static constexpr int bucket_count = static_cast<int>(phase_count) + 1;  // "not seen", then core's Phase

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int maximum() const;

    void setRanks(const std::vector<RankRow>& ranks);
    [[nodiscard]] Q_INVOKABLE int countOf(int phase) const;  // a Phase value; -1 for not seen

signals:
    void countsChanged();

private:
    std::array<int, bucket_count> counts_{};
};

}  // namespace meshscope::ui
