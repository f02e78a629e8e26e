// The web dashboard's files (web/ in the source tree), compiled into the executable by
// cmake/embed_files.cmake: the collector serves them at / without reading the disk (docs/collector.md).
#pragma once

#include <span>
#include <string_view>

namespace meshscope::web {

struct WebAsset {
    std::string_view path;          // "/index.html", "/live/live.js": the URL path it is served at
    std::string_view content_type;  // "text/javascript; charset=utf-8"
    std::span<const unsigned char> bytes;
};

// Every embedded file, sorted by path.
[[nodiscard]] std::span<const WebAsset> web_assets() noexcept;
// The file served at `path`, or nullptr.
[[nodiscard]] const WebAsset* find_web_asset(std::string_view path) noexcept;

}  // namespace meshscope::web
