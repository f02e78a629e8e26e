// The teaching mode's routes (docs/tours.md): the shipped tours, core's verdict on a learner's answer, the
// singleton pitfall's sandbox and a tour's simulated job. Every judgement is core's (parse_tour, check_answer,
// run_sandbox), so the web teaches exactly what the desktop does; this file only routes and shapes errors.
//   GET  /api/v1/tours                          {"tours": [{"name", "title", "summary", "steps"}]}
//   GET  /api/v1/tours/NAME                     the resolved tour, core's to_json(tour) (docs/tours.md)
//   GET  /api/v1/tours/NAME/steps/K             one step of it, with the finding it quotes from the tour's job
//   POST /api/v1/tours/NAME/steps/K/check       {"answer": {...}, "job"?} -> {"correct", "message"}
//   POST /api/v1/tours/NAME/job                 {"step"?: K} -> starts the step's simulated job, "tour-NAME",
//                                               through the TourJobRunner the collector was given (404 without)
//   POST /api/v1/sandbox                        {"calls": [...]} -> {"results": [...]}
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "http_exchange.h"
#include "meshscope/mesh/error.h"
#include "meshscope/tour/tour.h"

namespace meshscope::server {

class Collector;

// Runs a tour's simulated job inside the collector it was made for (HttpOptions::tour_jobs makes one). The
// collector has no simulator of its own: app/demo gives the runner.
class TourJobRunner {
public:
    virtual ~TourJobRunner() = default;  // stops the running job
    // Starts `job` as job `name`, or leaves it running when the same job with the same shape already runs. The
    // answer: simulate's summary {"job", "world_size", "injected"} and "started" (false: it was running already).
    // ValueError for a shape or faults the simulator refuses (the route's 400).
    [[nodiscard]] virtual Expected<nlohmann::json> start(const TourJob& job, const std::string& name) = 0;
};

// The 404 of POST /api/v1/tours/NAME/job on a collector given no TourJobRunner.
inline constexpr std::string_view no_tour_jobs_error = "this collector runs no tour jobs";

class TourApi {
public:
    using Reply = std::function<void(HttpReply)>;

    // `jobs` runs the tours' jobs; null: none (the job route answers 404).
    TourApi(Collector& collector, std::unique_ptr<TourJobRunner> jobs);
    ~TourApi();  // stops the tour job
    TourApi(const TourApi&) = delete;
    TourApi& operator=(const TourApi&) = delete;

    [[nodiscard]] static bool handles(const std::vector<std::string>& segments) noexcept;
    // segments: the decoded path (api v1 tours ... | api v1 sandbox); query still encoded. Calls reply once,
    // inline or from the monitor thread (a finding_rank check reads the job's findings there).
    void handle(const std::string& method, const std::vector<std::string>& segments, std::string_view query,
                const std::string& body, Reply reply);

private:
    Collector& collector_;
    std::unique_ptr<TourJobRunner> jobs_;
};

}  // namespace meshscope::server
