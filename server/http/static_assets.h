// The web dashboard's files as HTTP answers (no Beast, no token): the page holds no data, every /api/ call
// it makes carries the token. Which paths belong to the page is fixed here (WEB-CONTRACT / collector.md).
#pragma once

#include <string_view>

#include "http_exchange.h"

namespace meshscope::server {

// "/", "/index.html", "/app.js", "/app.css", "/palette.css", and anything under "/shared/", "/live/",
// "/planner/", "/tours/", "/sandbox/", "/peers/": served without a token.
[[nodiscard]] bool is_page_path(std::string_view path) noexcept;

// The answer for a page path: the embedded file (index.html for "/"), the palette as CSS for
// "/palette.css", or 404 {"error": "no such file: /live/x.js"}.
[[nodiscard]] HttpReply page_reply(std::string_view path);

}  // namespace meshscope::server
