// The probe's view of a collective library: a Backend creates the communicator of one group, a Communicator
// runs the four collectives on buffers it owns (host memory for gloo, device memory for NCCL). The run logic
// (probe_run.h) only sees this interface, so it is tested without a GPU and the same code drives both.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "meshscope/mesh/dim_collectives.h"

namespace meshscope::probe {

// One group of one mesh dim, as the rank's plan creates it.
struct GroupSpec {
    std::string mesh;                   // "data", "expert"
    std::string dim;                    // "ep"
    std::int64_t index = 0;             // the group's place in its dim's creation order
    std::int64_t creation = 0;          // the group's place among all groups of the plan, dims in order
    std::int64_t color = 0;             // NCCL split color: the index (one split per dim)
    std::vector<std::int64_t> members;  // global ranks by coordinate along the dim
    std::size_t position = 0;           // this rank's place in members
};

// A communicator that did not form in time. `missing`: the members (global ranks) the backend knows never
// joined; empty when it cannot tell.
class NotFormed : public std::runtime_error {
public:
    NotFormed(const std::string& what, std::vector<std::int64_t> missing)
        : std::runtime_error(what), missing_(std::move(missing)) {}
    [[nodiscard]] const std::vector<std::int64_t>& missing() const noexcept { return missing_; }

private:
    std::vector<std::int64_t> missing_;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    // Sets up the buffers of `collective`: copies `input` in and sizes the output (elements).
    virtual void load(Collective collective, std::span<const float> input, std::size_t output_elements) = 0;
    // Runs the loaded collective once (may only enqueue it, as NCCL does).
    virtual void launch() = 0;
    // Returns when everything launched has finished.
    virtual void wait() = 0;
    // The output buffer, copied to the host.
    [[nodiscard]] virtual std::vector<float> output() = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    // Creates the rank's communicator for `group`, groups in creation order. Throws NotFormed when the members
    // do not all join within `timeout`; std::runtime_error for anything else.
    [[nodiscard]] virtual std::unique_ptr<Communicator> create(const GroupSpec& group,
                                                               std::chrono::milliseconds timeout) = 0;
    // Called for every dim once all its groups' create() calls are made (NCCL splits a whole dim at once).
    virtual void dim_done(const std::string& /*dim*/) {}
};

}  // namespace meshscope::probe
