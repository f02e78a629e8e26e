#include "static_assets.h"

#include <array>

#include "meshscope/monitor/palette.h"
#include "web_assets.h"

namespace meshscope::server {

namespace {
constexpr std::array<std::string_view, 5> page_files = {"/", "/index.html", "/app.js", "/app.css", "/palette.css"};
constexpr std::array<std::string_view, 6> page_folders = {"/shared/", "/live/",    "/planner/",
                                                          "/tours/",  "/sandbox/", "/peers/"};

HttpReply file_reply(std::string body, std::string_view content_type) {
    HttpReply reply;
    reply.body = std::move(body);
    reply.content_type = std::string(content_type);
    // The page is part of the binary: a browser may keep it, but must ask again (a new collector may serve a
    // new page under the same names).
    reply.headers.emplace_back("Cache-Control", "no-cache");
    return reply;
}
}  // namespace

bool is_page_path(std::string_view path) noexcept {
    for (const std::string_view file : page_files)
        if (path == file) return true;
    for (const std::string_view folder : page_folders)
        if (path.starts_with(folder)) return true;
    return false;
}

HttpReply page_reply(std::string_view path) {
    // One palette table for QML, the painters and the page (core/include/meshscope/monitor/palette.h).
    if (path == "/palette.css") return file_reply(palette_stylesheet(), "text/css; charset=utf-8");
    const web::WebAsset* asset = web::find_web_asset(path == "/" ? "/index.html" : path);
    if (!asset) return error_reply(404, "no such file: " + std::string(path));
    return file_reply(std::string(reinterpret_cast<const char*>(asset->bytes.data()), asset->bytes.size()),
                      asset->content_type);
}

}  // namespace meshscope::server
