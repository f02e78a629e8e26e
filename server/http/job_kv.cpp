#include "job_kv.h"

#include <algorithm>
#include <string_view>

namespace meshscope::server {

namespace {
// The characters of a job name (docs/protocol.md) for both the job and the key.
bool plain_name(std::string_view text, std::size_t max_length) {
    return !text.empty() && text.size() <= max_length && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("._-:@+=").find(c) != std::string_view::npos;
    });
}
}  // namespace

bool JobKv::make_room_for_a_job(std::chrono::steady_clock::time_point now) {
    if (jobs_.size() < limits_.max_jobs) return true;
    auto quietest = std::min_element(jobs_.begin(), jobs_.end(), [](const auto& a, const auto& b) {
        return a.second.last_write < b.second.last_write;
    });
    if (now - quietest->second.last_write < limits_.evict_after) return false;
    jobs_.erase(quietest);
    return true;
}

HttpReply JobKv::answer(const std::string& method, const std::string& job, const std::string& key, std::string body) {
    if (method != "GET" && method != "PUT") return error_reply(405, "use GET or PUT", {{"Allow", "GET, PUT"}});
    if (!plain_name(job, 128)) return error_reply(400, "job must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=");
    if (!plain_name(key, 256)) return error_reply(400, "key must be 1 to 256 characters of A-Z, a-z, 0-9 and ._-:@+=");
    const std::lock_guard lock(mutex_);
    if (method == "GET") {
        if (const auto j = jobs_.find(job); j != jobs_.end()) {
            if (const auto v = j->second.values.find(key); v != j->second.values.end()) {
                HttpReply reply;
                reply.body = v->second;
                reply.content_type = "application/octet-stream";
                return reply;
            }
        }
        return error_reply(404, "no key \"" + key + "\" in job \"" + job + "\"'s store yet");
    }
    if (body.size() > limits_.max_value_bytes)
        return error_reply(413, "a value holds at most " + std::to_string(limits_.max_value_bytes) + " bytes");
    const auto now = std::chrono::steady_clock::now();
    auto j = jobs_.find(job);
    if (j == jobs_.end()) {
        if (!make_room_for_a_job(now))
            return error_reply(507, "the key-value store holds " + std::to_string(limits_.max_jobs) +
                                        " jobs already; try again later");
        j = jobs_.emplace(job, Job{}).first;
    }
    Job& entry = j->second;
    const auto old = entry.values.find(key);
    const std::size_t old_bytes = old == entry.values.end() ? 0 : old->first.size() + old->second.size();
    if (old == entry.values.end() && entry.values.size() >= limits_.max_keys_per_job)
        return error_reply(
            507, "job \"" + job + "\"'s store holds " + std::to_string(limits_.max_keys_per_job) + " keys already");
    const std::size_t new_bytes = key.size() + body.size();
    if (entry.bytes - old_bytes + new_bytes > limits_.max_bytes_per_job)
        return error_reply(
            507, "job \"" + job + "\"'s store holds " + std::to_string(limits_.max_bytes_per_job) + " bytes already");
    entry.bytes = entry.bytes - old_bytes + new_bytes;
    entry.last_write = now;
    const std::size_t stored = body.size();
    entry.values[key] = std::move(body);
    HttpReply reply;
    reply.body = "{\"stored\":" + std::to_string(stored) + "}";
    return reply;
}

}  // namespace meshscope::server
