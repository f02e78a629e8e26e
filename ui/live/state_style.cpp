#include "state_style.h"

namespace meshscope::ui {

QColor LivePalette::state(const QString& state) const {
    if (state == QLatin1String("ready")) return ready;
    if (state == QLatin1String("initializing")) return initializing;
    if (state == QLatin1String("failed")) return failed;
    if (state == QLatin1String("stale")) return stale;
    if (state == QLatin1String("exited")) return exited;
    return pending;
}

// Ready is calm green, trouble is warm (failed red, stale amber), in-between states are cool; pending is
// the page's own grey so unseen ranks read as "nothing yet". Findings use magenta, a hue no state uses.
LivePalette LivePalette::light() {
    return {QColor("#fafafa"), QColor("#1f2328"), QColor("#59636e"), QColor("#d5d9de"),
            QColor("#79a9e6"), QColor("#5cb176"), QColor("#d9463e"), QColor("#e8a33a"),
            QColor("#8c94a0"), QColor("#b4238c"), QColor("#0969da"), QColor("#111111")};
}

LivePalette LivePalette::dark() {
    return {QColor("#1e1f22"), QColor("#eceff1"), QColor("#a9b1ba"), QColor("#3a3e45"),
            QColor("#4d7cc0"), QColor("#3f9a5c"), QColor("#e5534b"), QColor("#d29922"),
            QColor("#6e7681"), QColor("#ff6ad5"), QColor("#6cb6ff"), QColor("#ffffff")};
}

}  // namespace meshscope::ui
