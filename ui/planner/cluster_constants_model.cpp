#include "cluster_constants_model.h"

namespace meshscope::ui {

namespace {
QString qt(const std::string& text) {
    return QString::fromStdString(text);
}

// "0.41", "300 GB/s": the value as the profile's text gives it (up to 6 significant digits).
QString value_text(const cost::ClusterConstant& c) {
    const QString number = QString::number(c.constant.value, 'g', 6);
    return c.unit.empty() ? number : number + QLatin1Char(' ') + qt(c.unit);
}
}  // namespace

int ClusterConstantsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QString ClusterConstantsModel::clusterProfileText() const {
    if (constants_.file.empty()) return {};
    const QString name = QStringLiteral("cluster profile ") + qt(constants_.file);
    return constants_.note.empty() ? name : name + QStringLiteral(" not used: ") + qt(constants_.note);
}

QString ClusterConstantsModel::source_text(const cost::ClusterConstant& c) const {
    const bool fitted = c.constant.source == cost::ConstantSource::fitted;
    const QString where = fitted ? QStringLiteral("cluster profile ") + qt(constants_.file) : QStringLiteral("preset");
    return c.constant.basis.empty() ? where : where + QStringLiteral(": ") + qt(c.constant.basis);
}

QVariant ClusterConstantsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& c = constants_.constants[static_cast<std::size_t>(index.row())];
    switch (role) {
        case NameRole: return qt(c.name);
        case Qt::DisplayRole:
        case LabelRole: return qt(c.label);
        case ValueTextRole: return value_text(c);
        case SourceRole: return qt(std::string(cost::to_string(c.constant.source)));
        case FromClusterProfileRole: return c.constant.source == cost::ConstantSource::fitted;
        case SourceTextRole: return source_text(c);
        case SourceNameRole:
            return c.constant.source == cost::ConstantSource::fitted ? QStringLiteral("cluster profile")
                                                                     : QStringLiteral("preset");
        default: return {};
    }
}

QHash<int, QByteArray> ClusterConstantsModel::roleNames() const {
    return {{NameRole, "name"},
            {LabelRole, "label"},
            {ValueTextRole, "valueText"},
            {SourceRole, "source"},
            {FromClusterProfileRole, "fromClusterProfile"},
            {SourceTextRole, "sourceText"},
            {SourceNameRole, "sourceName"}};
}

void ClusterConstantsModel::set(cost::ClusterConstants constants) {
    const int before = count();
    beginResetModel();
    constants_ = std::move(constants);
    endResetModel();
    if (count() != before) emit countChanged();
    emit constantsChanged();
}

void ClusterConstantsModel::clear() {
    set({});
}

}  // namespace meshscope::ui
