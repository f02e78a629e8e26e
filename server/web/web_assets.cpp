#include "web_assets.h"

#include <algorithm>

namespace meshscope::web {

const WebAsset* find_web_asset(std::string_view path) noexcept {
    const auto assets = web_assets();
    const auto it = std::lower_bound(assets.begin(), assets.end(), path,
                                     [](const WebAsset& asset, std::string_view p) { return asset.path < p; });
    return it != assets.end() && it->path == path ? &*it : nullptr;
}

}  // namespace meshscope::web
