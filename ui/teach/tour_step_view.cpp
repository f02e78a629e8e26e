#include "tour_step_view.h"

namespace meshscope::ui {

namespace {
QString qt(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
}  // namespace

QString answer_kind(std::string_view check_kind) {
    for (const char* kind : {"rank_in_group", "rank_leaves_node", "finding_rank", "peer_group"})
        if (check_kind == kind) return QStringLiteral("rank");
    if (check_kind == "count" || check_kind == "creation_index") return QStringLiteral("number");
    for (const char* kind : {"choice", "layout", "sandbox"})
        if (check_kind == kind) return QString::fromLatin1(kind);
    return {};
}

void TourStepView::show(const Tour* tour, int index) {
    const bool valid = tour && index >= 1 && index <= static_cast<int>(tour->steps.size());
    step_ = valid ? &tour->steps[static_cast<std::size_t>(index - 1)] : nullptr;
    tour_name_ = valid ? QString::fromStdString(tour->name) : QString();
    tour_title_ = valid ? QString::fromStdString(tour->title) : QString();
    index_ = valid ? index : 0;
    count_ = valid ? static_cast<int>(tour->steps.size()) : 0;
    emit changed();
}

void TourStepView::set_finding(const std::optional<Finding>& finding) {
    const QString kind = finding ? qt(to_string(finding->kind)) : QString();
    const QString message = finding ? QString::fromStdString(finding->message) : QString();
    const QString fix = finding ? QString::fromStdString(finding->fix) : QString();
    if (kind == finding_kind_ && message == finding_message_ && fix == finding_fix_) return;
    finding_kind_ = kind;
    finding_message_ = message;
    finding_fix_ = fix;
    emit findingChanged();
}

QString TourStepView::title() const {
    return step_ ? QString::fromStdString(step_->title) : QString();
}

QString TourStepView::text() const {
    return step_ ? QString::fromStdString(step_->text) : QString();
}

QString TourStepView::page() const {
    return step_ ? qt(to_string(step_->page)) : QString();
}

QString TourStepView::anchor() const {
    return step_ ? QString::fromStdString(step_->anchor) : QString();
}

QString TourStepView::prompt() const {
    return hasTask() ? QString::fromStdString(step_->task->prompt) : QString();
}

QString TourStepView::hint() const {
    return hasTask() ? QString::fromStdString(step_->task->hint) : QString();
}

std::string TourStepView::check_kind() const {
    if (!hasTask()) return {};
    const auto kind = step_->task->check.find("kind");
    return kind != step_->task->check.end() && kind->is_string() ? kind->get<std::string>() : std::string();
}

QString TourStepView::answerKind() const {
    return answer_kind(check_kind());
}

QStringList TourStepView::options() const {
    QStringList texts;
    if (!hasTask()) return texts;
    const auto options = step_->task->check.find("options");
    if (options == step_->task->check.end() || !options->is_array()) return texts;
    for (const auto& option : *options)
        if (option.is_string()) texts << QString::fromStdString(option.get<std::string>());
    return texts;
}

}  // namespace meshscope::ui
