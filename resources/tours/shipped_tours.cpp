#include "shipped_tours.h"

namespace meshscope {

const ShippedTour* find_shipped_tour(std::string_view name) noexcept {
    for (const ShippedTour& tour : shipped_tours())
        if (tour.name == name) return &tour;
    return nullptr;
}

}  // namespace meshscope
