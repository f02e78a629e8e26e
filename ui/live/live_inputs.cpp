#include "live_inputs.h"

#include <algorithm>

namespace meshscope::ui {

void LiveInputs::setUrl(const QString& url) {
    if (url == url_) return;
    url_ = url;
    emit serverChanged();
}

void LiveInputs::setToken(const QString& token) {
    if (token == token_) return;
    token_ = token;
    emit serverChanged();
}

void LiveInputs::setCurrentJob(const QString& job) {
    user_chose_job_ = true;
    set_job(job);
}

void LiveInputs::followJob(const QString& job) {
    user_chose_job_ = false;
    set_job(job);
}

void LiveInputs::set_job(const QString& job) {
    if (job == current_job_) return;
    current_job_ = job;
    emit currentJobChanged();
}

void LiveInputs::setPollIntervalMs(int ms) {
    ms = std::max(minPollIntervalMs, ms);
    if (ms == poll_interval_ms_) return;
    poll_interval_ms_ = ms;
    emit pollIntervalMsChanged();
}

void LiveInputs::setSettleMs(int ms) {
    if (ms == settle_ms_) return;
    settle_ms_ = ms;
    emit settleMsChanged();
}

void LiveInputs::setUpdateIntervalMs(int ms) {
    ms = std::max(0, ms);
    if (ms == update_interval_ms_) return;
    update_interval_ms_ = ms;
    emit updateIntervalMsChanged();
}

}  // namespace meshscope::ui
