// How the planner draws the selected rank's group along each dim: one colour and one shape per dim, so that
// the groups stay apart where they overlap. Shared by the grid, its exports, the legend and the inspector.
#pragma once

#include <QColor>
#include <QString>

#include <string_view>

namespace meshscope::ui {

enum class HighlightShape {
    frame,  // a thick frame around the group's runs of cells (ep, dp)
    band,   // a tinted band over the runs (expert_cp, cp)
    ring,   // a ring inside every member cell (efsdp, edp): members far apart
};

struct DimStyle {
    QColor color;
    HighlightShape shape = HighlightShape::frame;
    double width = 3.0;   // pen width in pixels
    double inset = 0.0;   // rings: distance from the cell edge in pixels
    QString description;  // for the legend: "frame"
};

[[nodiscard]] DimStyle dim_style(std::string_view dim);

}  // namespace meshscope::ui
