// meshscope import: what `meshscope diagnose` reads and finds (NCCL INFO logs, Flight Recorder dumps, NCCL RAS
// status, placed on a plan), put into a running collector as a job (POST /api/v1/jobs/{job}/records,
// meshscope.records/1), where the Live pages show it beside the hook's events. Exit 0 when the collector took the
// records, 1 when it could not be reached or refused them (its message on stderr), 2 for bad input: flags, a plan
// that cannot be read, or no record read. A collector that sheds load (503, or 429) is asked again after its
// Retry-After (at most --retry-wait-max), --retries times at most, each wait told on stderr.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/client/http_post.h"
#include "meshscope/monitor/event.h"
#include "meshscope/records/diagnose.h"
#include "record_files.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope import PATH... --target URL [--job NAME] [--token T] [--timeout S] [--retries N] "
    "[--retry-wait-max S] [--plan FILE | --dp D [--cp C] [--ep E]]";

const Usage usage_error{"import", usage_hint};

// The job named after the first path: its last component ("/scratch/job-4711/fr/" -> "fr"), characters a job
// name cannot hold as '-', at most the longest job name.
std::string default_job(const std::string& path) {
    std::filesystem::path p(path);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();
    std::string name = p.filename().string();
    if (name == "." || name == ".." || name.empty()) name = "records";
    return job_name_from(std::move(name));
}

// The collector's {"error": ...}, else the answer as it came (a proxy's page), cut to one line.
std::string answer_text(const std::string& body) {
    const auto parsed = nlohmann::json::parse(body, nullptr, false);
    if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string())
        return parsed["error"].get<std::string>();
    std::string text = body.substr(0, 200);
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

// "30 s", "0.5 s": seconds as the messages write them (to the millisecond).
std::string seconds_text(double seconds) {
    const auto ms = static_cast<std::int64_t>(std::llround(seconds * 1000));
    std::string text = std::to_string(ms / 1000);
    if (const auto frac = ms % 1000; frac != 0) {
        std::string f = std::to_string(frac);
        f = std::string(3 - f.size(), '0') + f;
        while (f.ends_with('0')) f.pop_back();
        text += "." + f;
    }
    return text + " s";
}
}  // namespace

int run_import(int argc, char** argv) {
    CLI::App cli{"Put a job's NCCL INFO logs, Flight Recorder dumps and NCCL RAS status into a collector.",
                 "meshscope import"};
    std::vector<std::string> paths;
    std::string target, job, token;
    double timeout = 30, retry_wait_max = 60;
    int retries = 5;
    cli.add_option("paths", paths, "files or directories (plain or gzip)")->required()->type_name("PATH...");
    cli.add_option("--target", target, "the collector: http://HOST:PORT (meshscope serve)")->required();
    cli.add_option("--job", job, "the job's name in the collector (default: the first PATH's last name)");
    cli.add_option("--token", token, "bearer token of the collector");
    cli.add_option("--timeout", timeout, "seconds to wait for the collector")->capture_default_str();
    cli.add_option("--retries", retries,
                   "times to send again when the collector sheds load (503 or 429, after its Retry-After)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100));
    cli.add_option("--retry-wait-max", retry_wait_max,
                   "seconds waited at most before sending again, whatever Retry-After asks (without one: 1 s)")
        ->capture_default_str();
    PlanOptions plan_options;
    plan_options.add_to(cli);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    while (!target.empty() && target.back() == '/') target.pop_back();
    if (!target.starts_with("http://") && !target.starts_with("https://"))
        return usage_error("--target must be an http:// or https:// URL, got '" + target + "'");
    if (!std::isfinite(timeout) || timeout < 0.1 || timeout > 3600)
        return usage_error("--timeout must be from 0.1 to 3600 seconds");
    if (!std::isfinite(retry_wait_max) || retry_wait_max < 0 || retry_wait_max > 3600)
        return usage_error("--retry-wait-max must be from 0 to 3600 seconds");
    if (job.empty()) job = default_job(paths.front());
    if (!valid_job_name(job))
        return usage_error("--job must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                           " characters of A-Z, a-z, 0-9 and ._-:@+=, got '" + records::printable(job) + "'");

    std::optional<Plan> plan;
    if (const auto failed = plan_from_options("import", usage_hint, plan_options, plan)) return *failed;

    records::RecordSet records;
    if (!load_usable_records("import", paths, records, ": nothing sent to " + target)) return exit_usage;
    const auto diagnosis = records::diagnose(records, plan ? &*plan : nullptr);
    const std::string body =
        to_json(records::to_records_import(diagnosis)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

    const std::atomic<bool> abort{false};
    const auto wait = std::chrono::milliseconds(static_cast<std::int64_t>(timeout * 1000));
    client::HttpPost post(target + "/api/v1/jobs/" + job + "/records", token, {}, wait, wait, abort);
    client::PostResult answer = post.post(body);
    for (int retry = 1; retry <= retries && (answer.status == 503 || answer.status == 429); ++retry) {
        const double wait = std::min(answer.retry_after >= 0 ? answer.retry_after : 1.0, retry_wait_max);
        std::cerr << "meshscope import: the collector at " << target << " is busy (HTTP " << answer.status
                  << "): " << records::printable(answer_text(answer.error)) << "; sending again in "
                  << seconds_text(wait) << " (retry " << retry << " of " << retries << ")\n";
        std::this_thread::sleep_for(std::chrono::duration<double>(wait));
        answer = post.post(body);
    }
    if (answer.status == 0) {
        std::cerr << "meshscope import: cannot reach the collector at " << target << ": " << answer.error << "\n";
        return exit_failure;
    }
    if (answer.status != 200) {
        std::cerr << "meshscope import: the collector at " << target << " refused the records (HTTP " << answer.status
                  << "): " << records::printable(answer_text(answer.error));
        if ((answer.status == 503 || answer.status == 429) && retries > 0)
            std::cerr << "; gave up after " << retries << (retries == 1 ? " retry" : " retries");
        else if (answer.retry_after >= 0)
            std::cerr << "; try again in " << static_cast<long>(std::ceil(answer.retry_after)) << " s";
        std::cerr << "\n";
        return exit_failure;
    }
    const auto findings = diagnosis.findings.size();
    std::cout << "imported " << findings << (findings == 1 ? " finding" : " findings") << " and "
              << diagnosis.ranks.size() << (diagnosis.ranks.size() == 1 ? " rank" : " ranks") << " into job \"" << job
              << "\" at " << target << "\n";
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
