// TourStepView: what the tour panel shows of the open step: the tour, where the step is in it, its text, the
// page it drives and the part of the screen it highlights (an anchor, the objectName of that item), and its
// task: the prompt, the hint, and what kind of answer it wants (a rank clicked on a grid, a number, a choice,
// the planner's layout, or the sandbox's history). TourController fills it; QML only reads.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>

#include "meshscope/tour/tour.h"

namespace meshscope::ui {

class TourStepView : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TourStepView belongs to a TourController")
    Q_PROPERTY(bool active READ active NOTIFY changed)  // a tour is open
    Q_PROPERTY(QString tourName READ tourName NOTIFY changed)
    Q_PROPERTY(QString tourTitle READ tourTitle NOTIFY changed)
    Q_PROPERTY(int index READ index NOTIFY changed)  // from 1
    Q_PROPERTY(int count READ count NOTIFY changed)
    Q_PROPERTY(QString title READ title NOTIFY changed)
    Q_PROPERTY(QString text READ text NOTIFY changed)      // plain text, paragraphs separated by a blank line
    Q_PROPERTY(QString page READ page NOTIFY changed)      // "planner", "live", "sandbox" or "peers"
    Q_PROPERTY(QString anchor READ anchor NOTIFY changed)  // "" : none
    Q_PROPERTY(bool hasTask READ hasTask NOTIFY changed)
    Q_PROPERTY(QString prompt READ prompt NOTIFY changed)
    Q_PROPERTY(QString hint READ hint NOTIFY changed)
    // "rank", "number", "choice", "layout" or "sandbox"; "" without a task
    Q_PROPERTY(QString answerKind READ answerKind NOTIFY changed)
    Q_PROPERTY(QStringList options READ options NOTIFY changed)  // a choice's texts
    // The finding the step quotes (its finding_text), in core's words; "" when none (yet).
    Q_PROPERTY(QString findingKind READ findingKind NOTIFY findingChanged)
    Q_PROPERTY(QString findingMessage READ findingMessage NOTIFY findingChanged)
    Q_PROPERTY(QString findingFix READ findingFix NOTIFY findingChanged)

public:
    using QObject::QObject;

    [[nodiscard]] bool active() const { return step_ != nullptr; }
    [[nodiscard]] QString tourName() const { return tour_name_; }
    [[nodiscard]] QString tourTitle() const { return tour_title_; }
    [[nodiscard]] int index() const { return index_; }
    [[nodiscard]] int count() const { return count_; }
    [[nodiscard]] QString title() const;
    [[nodiscard]] QString text() const;
    [[nodiscard]] QString page() const;
    [[nodiscard]] QString anchor() const;
    [[nodiscard]] bool hasTask() const { return step_ && step_->task; }
    [[nodiscard]] QString prompt() const;
    [[nodiscard]] QString hint() const;
    [[nodiscard]] QString answerKind() const;
    [[nodiscard]] QStringList options() const;
    [[nodiscard]] QString findingKind() const { return finding_kind_; }
    [[nodiscard]] QString findingMessage() const { return finding_message_; }
    [[nodiscard]] QString findingFix() const { return finding_fix_; }

    // The open step (null: none); the tour outlives it (the shipped catalog lives as long as the process).
    void show(const Tour* tour, int index);
    [[nodiscard]] const TourStep* step() const { return step_; }
    [[nodiscard]] std::string check_kind() const;  // "" without a task
    void set_finding(const std::optional<Finding>& finding);

signals:
    void changed();
    void findingChanged();

private:
    const TourStep* step_ = nullptr;
    QString tour_name_;
    QString tour_title_;
    int index_ = 0;
    int count_ = 0;
    QString finding_kind_;
    QString finding_message_;
    QString finding_fix_;
};

// What a check kind wants as the answer: "rank" for rank_in_group, rank_leaves_node, finding_rank and
// peer_group; "number" for count and creation_index; "choice", "layout", "sandbox"; "" for anything else.
[[nodiscard]] QString answer_kind(std::string_view check_kind);

}  // namespace meshscope::ui
