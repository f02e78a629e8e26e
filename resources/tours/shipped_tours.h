// The tours MeshScope ships (resources/tours/NAME.json, docs/tours.md), compiled in by cmake/embed_files.cmake: the
// desktop and the collector (which serves them to the web page) read these same bytes, parsed by core's
// parse_tour. Qt-free, so the collector can link it.
//
//   for (const auto& t : meshscope::shipped_tours())
//       auto tour = meshscope::parse_tour(t.json).value();
#pragma once

#include <span>
#include <string_view>

namespace meshscope {

struct ShippedTour {
    std::string_view name;  // "mesh-basics"
    std::string_view json;  // the file's text, "meshscope.tour/1"
};

// Every shipped tour, in the tour list's order (docs/tours.md's table).
[[nodiscard]] std::span<const ShippedTour> shipped_tours() noexcept;
// The tour of that name, or nullptr.
[[nodiscard]] const ShippedTour* find_shipped_tour(std::string_view name) noexcept;

}  // namespace meshscope
