#include "hang_jobs.h"

#include "meshscope/records/diagnose.h"
#include "shipped_hang_jobs.h"

namespace meshscope {

Expected<RecordsImport> hang_job_import(const TourJob& job) {
    const auto files = shipped_hang_job(job.records);
    if (files.empty()) {
        std::string names;
        for (const auto name : shipped_hang_job_names()) names += (names.empty() ? "" : ", ") + std::string(name);
        return ValueError("no shipped job \"" + job.records + "\" (the jobs: " + names + ")");
    }
    auto topology = Topology::make(job.dp, job.cp, job.ep);
    if (!topology) return topology.error();
    auto plan = Plan::make(*topology, job.gpus_per_node);
    if (!plan) return plan.error();
    records::RecordSet set;
    for (const ShippedHangFile& f : files) {
        if (f.name.ends_with(".json")) continue;  // facts.json: what was injected, for the tests
        auto dump = records::read_fr_dump(f.bytes, std::string(job.records) + "/" + std::string(f.name));
        if (!dump) return dump.error();
        set.dumps.push_back(std::move(dump).value());
    }
    const auto diagnosis = records::diagnose(set, &*plan);
    return records::to_records_import(diagnosis);
}

}  // namespace meshscope
