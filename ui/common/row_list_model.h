// RowListModel<Row>: the one shape of the dashboard's list models. A model keeps its rows in a std::vector<Row>
// and names its roles in one table, in its Role enum's order: the role, the name QML delegates read it by, and a
// function of the row that gives its value. rowCount, data (Qt::DisplayRole reads one of the roles) and roleNames
// come from that table; `count` (with countChanged) from the rows. A model computes what a row shows when it
// builds the row, so a role is a function of the row alone.
//
//   class JobsModel : public MESHSCOPE_ROW_LIST_MODEL(JobRow) {  // Q_OBJECT, enum Role { JobRole = UserRole + 1, ..
//   constexpr RowRole<JobRow> roles[] = {{JobsModel::JobRole, "job", [](const JobRow& r) -> QVariant { ... }}, ...};
//   static_assert(roles_in_order(roles));
//   JobsModel::JobsModel(QObject* parent) : RowListModel(roles, JobRole, parent) {}
//
// New rows reset the model (setRows), or, where a view must keep its selection and scroll position, replace the
// rows in place when they are the same rows one for one (updateRows: dataChanged per changed row, or over the
// span that changed). Q_OBJECT cannot sit on a template: RowListModelBase carries the QML-facing part.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QByteArray>
#include <QHash>
#include <QVariant>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace meshscope::ui {

class RowListModelBase : public QAbstractListModel {
    Q_OBJECT
    QML_ANONYMOUS
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int count() const { return rowCount(); }

signals:
    void countChanged();
};

// A model's base class: `class JobsModel : public MESHSCOPE_ROW_LIST_MODEL(JobRow)`. The compiler sees
// RowListModel<Row>; moc, and so QML's tools (qmltyperegistrar, qmllint), see RowListModelBase, a class they can find,
// whose `count` and QAbstractListModel base they then know. RowListModel<Row> adds no meta-object, so the two are one
// to Qt.
#ifdef Q_MOC_RUN
#define MESHSCOPE_ROW_LIST_MODEL(Row) meshscope::ui::RowListModelBase
#else
#define MESHSCOPE_ROW_LIST_MODEL(Row) meshscope::ui::RowListModel<Row>
#endif

// One role of a model: its Role enum value, its QML name and its value for a row.
template <typename Row>
struct RowRole {
    int role;
    const char* name;
    QVariant (*value)(const Row&);
};

// A table lists its roles in their enum's order, the first Qt::UserRole + 1: data() finds a role by its place.
template <typename Row, std::size_t N>
constexpr bool roles_in_order(const RowRole<Row> (&roles)[N]) {
    for (std::size_t i = 0; i < N; ++i)
        if (roles[i].role != Qt::UserRole + 1 + static_cast<int>(i)) return false;
    return true;
}

// How updateRows tells views about rows replaced in place.
enum class RowChanges {
    each,  // one dataChanged per row that changed
    span,  // one dataChanged from the first row that changed to the last (cheap for thousands of rows)
};

template <typename Row>
class RowListModel : public RowListModelBase {
public:
    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }

    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
        if (role == Qt::DisplayRole) role = display_role_;
        const auto at = static_cast<std::size_t>(role - (Qt::UserRole + 1));  // below the first: far past the end
        if (at >= roles_.size()) return {};
        return roles_[at].value(rows_[static_cast<std::size_t>(index.row())]);
    }

    [[nodiscard]] QHash<int, QByteArray> roleNames() const override {
        QHash<int, QByteArray> names;
        for (const RowRole<Row>& r : roles_) names.insert(r.role, QByteArray(r.name));
        return names;
    }

    [[nodiscard]] const std::vector<Row>& rows() const { return rows_; }

protected:
    // roles: the model's table (static storage, roles_in_order); display_role: the role Qt::DisplayRole reads.
    RowListModel(std::span<const RowRole<Row>> roles, int display_role, QObject* parent)
        : RowListModelBase(parent), roles_(roles), display_role_(display_role) {
        for (std::size_t i = 0; i < roles_.size(); ++i)
            Q_ASSERT(roles_[i].role == Qt::UserRole + 1 + static_cast<int>(i));
    }

    // New rows: a model reset, and countChanged when their number changed. `alongside` changes the model's other
    // state inside the reset, after the rows are in place, so a view sees both change at once.
    void setRows(std::vector<Row> rows, const std::function<void()>& alongside = {}) {
        const bool count_changed = rows.size() != rows_.size();
        beginResetModel();
        rows_ = std::move(rows);
        if (alongside) alongside();
        endResetModel();
        if (count_changed) emit countChanged();
    }

    // Rows that are the current ones one for one (same_key(new, old) for each) replace them in place, so a view
    // keeps its selection and position: a row equal to the current one changes nothing, the others are told as
    // `changes` says. Any other rows reset the model (setRows, with `alongside`).
    template <typename SameKey>
    void updateRows(std::vector<Row> rows, SameKey same_key, RowChanges changes,
                    const std::function<void()>& alongside = {}) {
        if (!std::equal(rows.begin(), rows.end(), rows_.begin(), rows_.end(), same_key)) {
            setRows(std::move(rows), alongside);
            return;
        }
        int first = -1;
        int last = -1;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i] == rows_[i]) continue;
            rows_[i] = std::move(rows[i]);
            const int row = static_cast<int>(i);
            if (changes == RowChanges::each) emit dataChanged(index(row), index(row));
            if (first < 0) first = row;
            last = row;
        }
        if (changes == RowChanges::span && first >= 0) emit dataChanged(index(first), index(last));
    }

    // One row inserted before `at` (count() appends) / the row at `at` removed; countChanged after either.
    void insertRowAt(int at, Row row) {
        beginInsertRows({}, at, at);
        rows_.insert(rows_.begin() + at, std::move(row));
        endInsertRows();
        emit countChanged();
    }
    void removeRowAt(int at) {
        beginRemoveRows({}, at, at);
        rows_.erase(rows_.begin() + at);
        endRemoveRows();
        emit countChanged();
    }

    // Rows to change in place; the caller emits dataChanged for what it changed.
    [[nodiscard]] Row& rowAt(int row) { return rows_[static_cast<std::size_t>(row)]; }
    [[nodiscard]] std::vector<Row>& mutableRows() { return rows_; }

private:
    std::span<const RowRole<Row>> roles_;
    int display_role_;
    std::vector<Row> rows_;
};

}  // namespace meshscope::ui
