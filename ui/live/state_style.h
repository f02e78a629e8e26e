// The colours of rank states and findings, shared by the live grid, its legend (QML asks the grid item)
// and the screenshot test, so a state has one colour everywhere.
#pragma once

#include <QColor>
#include <QString>

namespace meshscope::ui {

struct LivePalette {
    QColor background;
    QColor text;
    QColor muted_text;
    QColor pending;
    QColor initializing;
    QColor ready;
    QColor failed;
    QColor stale;
    QColor exited;
    QColor finding;    // the corner mark of a rank that a finding names
    QColor highlight;  // outline of the selected finding's ranks
    QColor selection;  // outline of the selected rank

    [[nodiscard]] QColor state(const QString& state) const;
    [[nodiscard]] static LivePalette light();
    [[nodiscard]] static LivePalette dark();
};

}  // namespace meshscope::ui
