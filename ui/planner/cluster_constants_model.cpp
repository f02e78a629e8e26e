#include "cluster_constants_model.h"

#include <utility>
#include <vector>

namespace meshscope::ui {

namespace {
QString qt(const std::string& text) {
    return QString::fromStdString(text);
}

bool fitted(const ClusterConstantRow& r) {
    return r.constant.constant.source == cost::ConstantSource::fitted;
}

// "0.41", "300 GB/s": the value as the profile's text gives it (up to 6 significant digits).
QString value_text(const cost::ClusterConstant& c) {
    const QString number = QString::number(c.constant.value, 'g', 6);
    return c.unit.empty() ? number : number + QLatin1Char(' ') + qt(c.unit);
}

// "cluster profile cluster.json: 3 intra-node collective records from nccl.log" / "preset: h100 preset"
QString source_text(const ClusterConstantRow& r) {
    const QString where = fitted(r) ? QStringLiteral("cluster profile ") + qt(r.file) : QStringLiteral("preset");
    const std::string& basis = r.constant.constant.basis;
    return basis.empty() ? where : where + QStringLiteral(": ") + qt(basis);
}

using R = ClusterConstantRow;
constexpr RowRole<R> roles[] = {
    {ClusterConstantsModel::NameRole, "name", [](const R& r) -> QVariant { return qt(r.constant.name); }},
    {ClusterConstantsModel::LabelRole, "label", [](const R& r) -> QVariant { return qt(r.constant.label); }},
    {ClusterConstantsModel::ValueTextRole, "valueText", [](const R& r) -> QVariant { return value_text(r.constant); }},
    {ClusterConstantsModel::SourceRole, "source",
     [](const R& r) -> QVariant { return qt(std::string(cost::to_string(r.constant.constant.source))); }},
    {ClusterConstantsModel::FromClusterProfileRole, "fromClusterProfile",
     [](const R& r) -> QVariant { return fitted(r); }},
    {ClusterConstantsModel::SourceTextRole, "sourceText", [](const R& r) -> QVariant { return source_text(r); }},
    {ClusterConstantsModel::SourceNameRole, "sourceName",
     [](const R& r) -> QVariant { return fitted(r) ? QStringLiteral("cluster profile") : QStringLiteral("preset"); }},
};
static_assert(roles_in_order(roles));
}  // namespace

ClusterConstantsModel::ClusterConstantsModel(QObject* parent) : RowListModel(roles, LabelRole, parent) {}

QString ClusterConstantsModel::clusterProfileText() const {
    if (file_.empty()) return {};
    const QString name = QStringLiteral("cluster profile ") + qt(file_);
    return note_.empty() ? name : name + QStringLiteral(" not used: ") + qt(note_);
}

void ClusterConstantsModel::set(cost::ClusterConstants constants) {
    std::vector<ClusterConstantRow> rows;
    rows.reserve(constants.constants.size());
    for (cost::ClusterConstant& c : constants.constants) rows.push_back({std::move(c), constants.file});
    setRows(std::move(rows), [&] {
        file_ = std::move(constants.file);
        note_ = std::move(constants.note);
    });
    emit constantsChanged();
}

void ClusterConstantsModel::clear() {
    set({});
}

}  // namespace meshscope::ui
