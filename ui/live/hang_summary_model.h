// HangSummaryModel: the post-mortem of a job whose imported records show a hang, in core's words (the job
// summary's "hang", hang_position.h): the sentence the Live page heads its summary with, the root cause's ranks,
// and one row per place the ranks stand in (waiting in a dim's collective, no record, dead, outside collectives)
// for the legend: its standing and dim (the swatch's colour: Theme.colors.standingColor(standing, dim)), its
// text and how many ranks stand there. Empty and inactive for a job without one.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <optional>

#include "meshscope/monitor/hang_position.h"
#include "row_list_model.h"

namespace meshscope::ui {

class HangSummaryModel : public MESHSCOPE_ROW_LIST_MODEL(HangPlace) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("HangSummaryModel belongs to a LiveSession: session.view.hang")
    Q_PROPERTY(bool active READ active NOTIFY summaryChanged)  // the job has a hang summary
    Q_PROPERTY(
        QString text READ text NOTIFY summaryChanged)  // "root cause: rank 13; waiting in ep seq 2: 3 ranks; ..."
    Q_PROPERTY(QList<int> rootCause READ rootCause NOTIFY summaryChanged)

public:
    enum Role {
        StandingRole = Qt::UserRole + 1,  // core's name: "waiting", "no_record"
        DimRole,                          // "ep"; empty where the place has none
        SeqRole,                          // 0 where the place has none
        OpRole,
        RanksRole,      // how many ranks stand there
        SomeRanksRole,  // QList<int>: the lowest of them (at most 16)
        TextRole,       // "waiting in ep seq 2 (all_to_all)", "no record"
    };
    Q_ENUM(Role)

    explicit HangSummaryModel(QObject* parent = nullptr);

    [[nodiscard]] bool active() const { return summary_.has_value(); }
    [[nodiscard]] QString text() const;
    [[nodiscard]] QList<int> rootCause() const;

    // The selected job's summary; none for a job without one. Resets only when it changed.
    void setSummary(const std::optional<HangSummary>& summary);

signals:
    void summaryChanged();

private:
    std::optional<HangSummary> summary_;
};

}  // namespace meshscope::ui
