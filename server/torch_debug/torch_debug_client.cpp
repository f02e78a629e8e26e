#include "torch_debug_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

namespace meshscope::torch_debug {

namespace {

struct Socket {
    int fd = -1;
    ~Socket() {
        if (fd >= 0) ::close(fd);
    }
};

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

// The headers' end ("\r\n\r\n", or "\n\n" from a lax server), or npos.
std::size_t headers_end(std::string_view bytes, std::size_t& length) {
    const auto crlf = bytes.find("\r\n\r\n");
    const auto lf = bytes.find("\n\n");
    if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
        length = 4;
        return crlf;
    }
    length = 2;
    return lf;
}

std::optional<std::size_t> content_length(std::string_view head) {
    std::size_t pos = head.find('\n');
    while (pos != std::string_view::npos && pos < head.size()) {
        const auto next = head.find('\n', pos + 1);
        const auto line = head.substr(pos + 1, (next == std::string_view::npos ? head.size() : next) - pos - 1);
        if (const auto colon = line.find(':');
            colon != std::string_view::npos && lower(trim(line.substr(0, colon))) == "content-length") {
            const auto value = trim(line.substr(colon + 1));
            std::size_t n = 0;
            const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
            if (r.ec == std::errc() && r.ptr == value.data() + value.size()) return n;
        }
        pos = next;
    }
    return std::nullopt;
}

bool skip_space(std::string_view html, std::size_t& pos) {
    while (pos < html.size() && std::isspace(static_cast<unsigned char>(html[pos]))) ++pos;
    return pos < html.size();
}

// The end of the JSON value starting at pos (one past its closing bracket), strings honoured; npos when it does not
// close.
std::size_t json_end(std::string_view text, std::size_t pos) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = pos; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::string_view::npos;
}

// A <pre>'s text as jinja2 writes it with autoescaping on (torch's front end has it off): the five entities back.
std::string unescape_html(std::string_view text) {
    static constexpr std::pair<std::string_view, char> entities[] = {{"&amp;", '&'}, {"&lt;", '<'},   {"&gt;", '>'},
                                                                     {"&#34;", '"'}, {"&quot;", '"'}, {"&#39;", '\''}};
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        bool replaced = false;
        if (text[i] == '&')
            for (const auto& [entity, c] : entities)
                if (text.substr(i).starts_with(entity)) {
                    out += c;
                    i += entity.size();
                    replaced = true;
                    break;
                }
        if (!replaced) out += text[i++];
    }
    return out;
}

}  // namespace

// long: one HTTP/1.0 GET on a socket: send, read head and body under one deadline, the status parsed; not yet split
// into stages
std::string http_get(const std::string& host, const std::string& port, const std::string& path,
                     std::chrono::milliseconds timeout, std::size_t max_reply, const ras::RasStop* stop) {
    const std::string where = host + ":" + port;
    const std::string what = "GET " + path;
    auto deadline = ras::Clock::now() + timeout;
    Socket socket;
    socket.fd = ras::connect_socket(host, port, deadline, timeout, stop);
    const std::string host_header = host.find(':') != std::string::npos ? "[" + host + "]:" + port : where;
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + host_header +
                                "\r\nUser-Agent: meshscope\r\nAccept: text/html\r\nConnection: close\r\n\r\n";
    deadline = ras::Clock::now() + timeout;  // the whole answer from here
    for (std::size_t done = 0; done < request.size();) {
        const ssize_t n = ::send(socket.fd, request.data() + done, request.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (ras::wait_socket(socket.fd, POLLOUT, deadline, stop, where) == 0)
                throw ras::RasClientError(where + ": cannot send " + what + " within " + ras::seconds(timeout));
            continue;
        }
        throw ras::RasClientError(where + ": cannot send " + what + ": " + std::strerror(errno));
    }

    std::string bytes;
    std::size_t head_size = std::string::npos, separator = 0;
    std::optional<std::size_t> length;
    bool closed = false;
    for (;;) {
        if (head_size == std::string::npos) {
            head_size = headers_end(bytes, separator);
            if (head_size != std::string::npos) {
                const std::string_view status_line(bytes.data(), bytes.find_first_of("\r\n"));
                if (!status_line.starts_with("HTTP/"))
                    throw ras::RasClientError(where + " is not an HTTP server: it answered " +
                                              ras::quoted(status_line) + " to " + what);
                length = content_length(std::string_view(bytes).substr(0, head_size));
            } else if (!bytes.empty() && !std::string_view(bytes).starts_with(std::string_view("HTTP/").substr(
                                             0, std::min<std::size_t>(bytes.size(), 5)))) {
                throw ras::RasClientError(where + " is not an HTTP server: it answered " +
                                          ras::quoted(bytes.substr(0, bytes.find('\n'))) + " to " + what);
            }
        }
        if (head_size != std::string::npos && length && bytes.size() >= head_size + separator + *length) break;
        if (closed) break;
        char chunk[1 << 16];
        const ssize_t n = ::recv(socket.fd, chunk, sizeof chunk, 0);
        if (n > 0) {
            if (bytes.size() + static_cast<std::size_t>(n) > max_reply)
                throw ras::RasClientError(where + ": the answer to " + what + " is larger than " +
                                          std::to_string(max_reply) + " bytes; stopped reading");
            bytes.append(chunk, static_cast<std::size_t>(n));
            continue;
        }
        if (n == 0) {
            closed = true;
            continue;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            throw ras::RasClientError(where + ": cannot read the answer to " + what + ": " + std::strerror(errno));
        const int rc = ras::wait_socket(socket.fd, POLLIN, deadline, stop, where);
        if (rc == 0) throw ras::RasClientError(where + ": no answer to " + what + " within " + ras::seconds(timeout));
        if (rc < 0) throw ras::RasClientError(where + ": cannot wait for " + what + ": " + std::strerror(errno));
    }
    if (head_size == std::string::npos) {
        if (bytes.empty()) throw ras::RasClientError(where + " closed the connection before answering " + what);
        throw ras::RasClientError(where + " closed the connection mid-reply (after " + std::to_string(bytes.size()) +
                                  " bytes of " + what + ", before the end of its headers)");
    }
    const std::string_view status_line(bytes.data(), bytes.find_first_of("\r\n"));
    // "HTTP/1.0 404 Handler not found: /x": the code, then the reason (Python's send_error puts its message there)
    const auto space = status_line.find(' ');
    int status = 0;
    std::string_view reason;
    if (space != std::string_view::npos) {
        const auto code = status_line.substr(space + 1);
        const auto r = std::from_chars(code.data(), code.data() + code.size(), status);
        if (r.ec != std::errc()) status = 0;
        reason = trim(code.substr(std::min(code.size(), static_cast<std::size_t>(r.ptr - code.data()))));
    }
    if (status < 100 || status > 999)
        throw ras::RasClientError(where + " is not an HTTP server: it answered " + ras::quoted(status_line) + " to " +
                                  what);
    if (status != 200)
        throw ras::RasClientError(where + " answered HTTP " + std::to_string(status) + " to " + what +
                                  (reason.empty() ? std::string() : ": " + ras::quoted(reason)));
    std::string body = bytes.substr(head_size + separator);
    if (length && body.size() < *length)
        throw ras::RasClientError(where + " closed the connection mid-reply (after " + std::to_string(body.size()) +
                                  " of " + std::to_string(*length) + " bytes of " + what + ")");
    if (length) body.resize(*length);
    return body;
}

std::vector<PageRank> read_page(std::string_view html, const std::string& where, const std::string& what) {
    std::vector<PageRank> ranks;
    static constexpr std::string_view heading = "<h2>Rank ", failed = "<p>Failed to fetch: status=";
    std::size_t pos = 0;
    while ((pos = html.find(heading, pos)) != std::string_view::npos) {
        pos += heading.size();
        PageRank rank;
        const auto r = std::from_chars(html.data() + pos, html.data() + html.size(), rank.rank);
        const auto close = html.find("</h2>", pos);
        if (r.ec != std::errc() || close == std::string_view::npos || rank.rank < 0 ||
            !std::string_view(r.ptr, 2).starts_with(": "))
            continue;  // another heading that begins so: not a section
        const auto after = static_cast<std::size_t>(r.ptr - html.data()) + 2;
        rank.worker = std::string(html.substr(after, close - after));
        pos = close + 5;
        const std::string section = "section \"Rank " + std::to_string(rank.rank) + "\"";
        const auto cut = [&](const std::string& why) {
            return ras::RasClientError(where + ": the answer to " + what + " is cut short: its " + section + " " + why);
        };
        if (!skip_space(html, pos)) throw cut("ends after its heading");
        if (html.substr(pos).starts_with(failed)) {
            pos += failed.size();
            const auto end = html.find("</p>", pos);
            if (end == std::string_view::npos) throw cut("ends before its </p>");
            const auto code = html.substr(pos, end - pos);
            const auto c = std::from_chars(code.data(), code.data() + code.size(), rank.status);
            if (c.ec != std::errc()) rank.status = 0;
            pos = end + 4;
            if (!skip_space(html, pos)) throw cut("ends before its <pre>");
        }
        if (!html.substr(pos).starts_with("<pre>")) throw cut("has no <pre> after its heading");
        pos += 5;
        std::size_t end = std::string_view::npos;
        if (rank.status == 200) {
            std::size_t start = pos;
            skip_space(html, start);
            if (start < html.size() && html[start] == '{') {
                if (const auto json = json_end(html, start);
                    json != std::string_view::npos && html.substr(json).starts_with("</pre>"))
                    end = json;
            }
        }
        if (end == std::string_view::npos) end = html.find("</pre>", pos);
        if (end == std::string_view::npos) throw cut("ends before its </pre>");
        const auto text = html.substr(pos, end - pos);
        // jinja2 with autoescaping writes a quote as &#34;: torch's front end has it off, a customised one may not
        rank.text = text.find("&#34;") != std::string_view::npos || text.find("&quot;") != std::string_view::npos
                        ? unescape_html(text)
                        : std::string(text);
        pos = end + 6;
        ranks.push_back(std::move(rank));
    }
    if (ranks.empty())
        throw ras::RasClientError(where + ": the answer to " + what +
                                  " is not torch's debug-server page (no \"Rank N:\" section)");
    return ranks;
}

}  // namespace meshscope::torch_debug
