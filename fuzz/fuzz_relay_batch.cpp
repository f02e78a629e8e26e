// libFuzzer target: the relay's JSON readers on arbitrary bytes, what `meshscope relay` reads from anyone who
// can reach its port before the collector sees anything: a lower relay's POST /api/v1/batches (decode_batch, with
// its "seen" and "held"), a rank's body as the relay reads it for its senders (body_senders), and the upstream's
// answer (decode_results). The files are the relay's own (server/relay/batch_codec.cpp, admission.cpp,
// seen_digest.cpp), compiled here without Beast.
//
// Checked beyond "no crash, no leak, no UB, no hang": a refused batch gets one of the collector's texts (the
// shape, JSON's depth bound, or "seen"/"held"'s shape); an accepted one written back (encode_batch) reads back to
// the same bodies and ranks; the ranks it names go into a SeenDigest of a small bound that never holds more; a
// body's senders are those the collector's parser finds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "admission.h"
#include "batch_codec.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/monitor/event.h"
#include "seen_digest.h"

namespace {
using namespace meshscope;
using namespace meshscope::relay;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_relay_batch: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

void check_batch(std::string_view text) {
    const auto batch = decode_batch(text);
    if (!batch) {
        const std::string message = batch.error().message();
        check(message == R"(the body must be {"bodies": ["<request body>", ...]})" || message == json_depth_text() ||
                  message == R"("seen" must be {"<job>": [<rank>, ...]})" ||
                  message == R"("held" must be {"<job>": [<rank>, ...]})",
              "a refused batch gets one of the collector's texts");
        return;
    }
    std::vector<const std::string*> bodies;
    for (const auto& body : batch->bodies) bodies.push_back(&body);
    const auto again = decode_batch(encode_batch(bodies, batch->seen, batch->held));
    check(again.has_value(), "encode_batch(decode_batch(x)) is read back");
    // The parser took only valid UTF-8 strings, so the bodies come back byte for byte.
    check(again->bodies == batch->bodies, "the bodies read back");
    check(again->seen == batch->seen && again->held == batch->held, "seen and held read back");

    constexpr std::size_t bound = 64;
    SeenDigest digest(bound);
    digest.add(batch->seen, batch->held, SeenDigest::Clock::now());
    check(digest.size() <= bound, "the digest keeps its bound");
    check(digest.size() <= seen_count(batch->seen) + seen_count(batch->held), "the digest names only what it heard");
    const auto named = digest.take();
    check(seen_count(named.seen) == digest.size(), "the first round names every rank the digest holds");
    check(seen_count(named.held) <= seen_count(named.seen), "the held ranks are among those named");
}

void check_senders(std::string_view body) {
    const auto senders = body_senders(body);
    const auto events = parse_events(body);
    if (!events) {
        check(senders.ranks.empty() && !senders.heartbeats_only, "a body the collector refuses names nobody");
        return;
    }
    check(senders.ranks.size() <= events->size(), "at most one sender per event");
    for (const auto& [job, rank] : senders.ranks) check(rank >= 0 && !job.empty(), "a sender is a rank of a job");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    check_batch(bytes);
    check_senders(bytes);
    const auto results = decode_results(bytes, 2);
    if (results) check(results->size() == 2, "an upstream answer has one result per body");
    return 0;
}
