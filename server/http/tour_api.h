// The teaching mode's routes (docs/tours.md): the shipped tours, core's verdict on a learner's answer, the
// singleton pitfall's sandbox and a tour's simulated job. Every judgement is core's (parse_tour, check_answer,
// run_sandbox), so the web teaches exactly what the desktop does; this file only routes and shapes errors.
//   GET  /api/v1/tours                          {"tours": [{"name", "title", "summary", "steps"}]}
//   GET  /api/v1/tours/NAME                     the resolved tour, core's to_json(tour) (docs/tours.md)
//   GET  /api/v1/tours/NAME/steps/K             one step of it, with the finding it quotes from the tour's job
//   POST /api/v1/tours/NAME/steps/K/check       {"answer": {...}, "job"?} -> {"correct", "message"}
//   POST /api/v1/tours/NAME/job                 {"step"?: K} -> starts the step's simulated job, "tour-NAME"
//   POST /api/v1/sandbox                        {"calls": [...]} -> {"results": [...]}
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http_exchange.h"

namespace meshscope::server {

class Collector;
class TourJobs;

class TourApi {
public:
    using Reply = std::function<void(HttpReply)>;

    explicit TourApi(Collector& collector);
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
    std::unique_ptr<TourJobs> jobs_;
};

}  // namespace meshscope::server
