#include "tour_catalog.h"

#include "shipped_tours.h"

namespace meshscope::ui {

const TourCatalog& shipped_tour_catalog() {
    static const TourCatalog catalog = [] {
        TourCatalog c;
        for (const auto& shipped : shipped_tours()) {
            auto tour = parse_tour(shipped.json);
            if (tour)
                c.tours.push_back(std::move(tour).value());
            else
                c.errors << QStringLiteral("%1: %2").arg(QString::fromUtf8(shipped.name.data(), shipped.name.size()),
                                                         QString::fromStdString(tour.error().message()));
        }
        return c;
    }();
    return catalog;
}

const Tour* find_tour(const TourCatalog& catalog, const QString& name) {
    for (const Tour& tour : catalog.tours)
        if (QString::fromStdString(tour.name) == name) return &tour;
    return nullptr;
}

QString tour_names(const TourCatalog& catalog) {
    QStringList names;
    for (const Tour& tour : catalog.tours) names << QString::fromStdString(tour.name);
    return names.join(QStringLiteral(", "));
}

}  // namespace meshscope::ui
