// The Live grid's colours of rank states, findings and where ranks stand in a hang, from the one palette table
// (core/include/meshscope/monitor/palette.h) that also gives QML (Theme.stateColors) and CSS theirs.
#pragma once

#include <QColor>

#include <string_view>

#include "meshscope/monitor/hang_position.h"
#include "meshscope/monitor/rank_state.h"
#include "palette.h"

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
    QColor finding;       // the corner mark of a rank that a finding names
    QColor highlight;     // outline of the selected finding's ranks
    QColor selection;     // outline of the selected rank
    QColor ink_on_dark;   // rank numbers on dark fills
    QColor ink_on_light;  // rank numbers on light fills
    QColor root_cause;    // the ring around a root cause's ranks
    ColourScheme scheme = ColourScheme::light;

    [[nodiscard]] QColor state(RankStateKind state) const;
    // Core's standing_colour: waiting, the dim's colour; no record, dead, outside collectives their own.
    [[nodiscard]] QColor standing(HangStanding standing, std::string_view dim) const;
    [[nodiscard]] static LivePalette of(ColourScheme scheme);
    [[nodiscard]] static LivePalette light() { return of(ColourScheme::light); }
    [[nodiscard]] static LivePalette dark() { return of(ColourScheme::dark); }
};

}  // namespace meshscope::ui
