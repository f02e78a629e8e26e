// The tours the dashboard ships (resources/tours/*.json, compiled in by meshscope_tours), each read by core's
// parse_tour once per process. A tour core refuses is left out and its message kept, so the window still
// opens and the test command (which parses every shipped tour) names the file.
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "meshscope/tour/tour.h"

namespace meshscope::ui {

struct TourCatalog {
    std::vector<Tour> tours;  // in the order they ship
    QStringList errors;       // "NAME: core's message" for each refused tour
};

[[nodiscard]] const TourCatalog& shipped_tour_catalog();
// null for a name no shipped tour has
[[nodiscard]] const Tour* find_tour(const TourCatalog& catalog, const QString& name);
// "mesh-basics, expert-mesh, ..." (for the CLI's message on an unknown name)
[[nodiscard]] QString tour_names(const TourCatalog& catalog);

}  // namespace meshscope::ui
