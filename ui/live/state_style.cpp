#include "state_style.h"

namespace meshscope::ui {

QColor LivePalette::state(RankStateKind state) const {
    switch (state) {
        case RankStateKind::pending: return pending;
        case RankStateKind::initializing: return initializing;
        case RankStateKind::ready: return ready;
        case RankStateKind::failed: return failed;
        case RankStateKind::stale: return stale;
        case RankStateKind::exited: return exited;
    }
    return pending;
}

QColor LivePalette::standing(HangStanding standing, std::string_view dim) const {
    return palette_colour(standing_colour(standing, dim), scheme);
}

LivePalette LivePalette::of(ColourScheme scheme) {
    const auto c = [scheme](Colour colour) { return palette_colour(colour, scheme); };
    return {c(Colour::grid_background),    c(Colour::text),         c(Colour::muted_text),   c(Colour::state_pending),
            c(Colour::state_initializing), c(Colour::state_ready),  c(Colour::state_failed), c(Colour::state_stale),
            c(Colour::state_exited),       c(Colour::finding),      c(Colour::accent),       c(Colour::rank_selection),
            c(Colour::ink_on_dark),        c(Colour::ink_on_light), c(Colour::root_cause),   scheme};
}

}  // namespace meshscope::ui
