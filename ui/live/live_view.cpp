#include "live_view.h"

#include <QCollator>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

#include "live_enums.h"

namespace meshscope::ui {

LiveView::LiveView(QObject* parent)
    : QObject(parent),
      state_counts_(static_cast<int>(rank_state_kind_count), 0),
      unplaced_counts_(static_cast<int>(rank_state_kind_count), 0) {
    filtered_.setSourceModel(&ranks_);
}

QString LiveView::statusText() const {
    if (url_.isEmpty()) return tr("No collector: run `meshscope` for the demo or `meshscope --connect URL`");
    if (!error_.isEmpty()) return error_;
    if (!connected_) return tr("Connecting to %1 …").arg(url_);
    return streaming_ ? tr("Live from %1").arg(url_) : tr("Polling %1 (change stream unavailable)").arg(url_);
}

void LiveView::setConnection(const QString& url, bool connected, bool streaming, const QString& error) {
    if (url == url_ && connected == connected_ && streaming == streaming_ && error == error_) return;
    url_ = url;
    connected_ = connected;
    streaming_ = streaming;
    error_ = error;
    emit connectionChanged();
}

void LiveView::takeRanks(const JobRow* job, bool snapshot) {
    const auto& rows = ranks_.ranks();
    QList<int> counts(static_cast<int>(rank_state_kind_count), 0);
    QList<int> unplaced = counts;
    int seen = 0;
    int gpus = 0;
    for (const RankRow& r : rows) {
        ++counts[static_cast<int>(r.state)];
        if (!r.position) ++unplaced[static_cast<int>(r.state)];
        if (r.state != RankStateKind::pending) ++seen;
        gpus = std::max(gpus, r.local_rank + 1);
    }
    histogram_.setRanks(rows);

    const int world = job && job->world_size > 0 ? static_cast<int>(job->world_size) : static_cast<int>(rows.size());
    // Ranks the grid draws that have no row yet are pending, with no position.
    if (world > static_cast<int>(rows.size()))
        unplaced[static_cast<int>(RankStateKind::pending)] += world - static_cast<int>(rows.size());
    std::optional<ReportedTopology> topology = job ? job->topology : std::nullopt;
    if (topology != topology_ || world != world_ || counts != state_counts_ || seen != seen_ ||
        unplaced != unplaced_counts_) {
        topology_ = topology;
        world_ = world;
        state_counts_ = counts;
        unplaced_counts_ = unplaced;
        seen_ = seen;
        emit progressChanged();
    }
    hang_.setSummary(job ? job->hang : std::nullopt);
    filtered_.setPlaces(job ? job->hang : std::nullopt);

    GridLayout layout{topology, world, gpus > 0 ? gpus : 8};
    if (layout.topology && layout.topology->dp * layout.topology->cp != world) layout.topology.reset();
    if (!(layout == layout_)) {
        layout_ = layout;
        emit layoutChanged();
    }
    if (snapshot) take_hosts_and_times();
}

void LiveView::take_hosts_and_times() {
    QSet<QString> seen_hosts;
    double origin = std::numeric_limits<double>::infinity();
    double horizon = -std::numeric_limits<double>::infinity();
    for (const RankRow& r : ranks_.ranks()) {
        if (!r.host.isEmpty()) seen_hosts.insert(r.host);
        for (const PhaseTiming& p : r.timings)
            for (const auto& t : {p.started, p.done, p.failed})
                if (t) {
                    origin = std::min(origin, *t);
                    horizon = std::max(horizon, *t);
                }
    }
    origin_ = std::isfinite(origin) ? origin : 0;
    horizon_ = std::isfinite(horizon) ? horizon : 0;
    QStringList hosts(seen_hosts.begin(), seen_hosts.end());
    QCollator collator;
    collator.setNumericMode(true);  // node-2 before node-10
    std::sort(hosts.begin(), hosts.end(), collator);
    if (hosts != hosts_) {
        hosts_ = hosts;
        emit hostsChanged();
    }
}

QString LiveView::progressText() const {
    if (world_ <= 0) return tr("no ranks yet");
    return tr("%1 / %2 ready · %3 seen").arg(readyCount()).arg(world_).arg(seen_);
}

QString LiveView::topologyText() const {
    if (!topology_) return {};
    return QStringLiteral("dp %1 · cp %2 · ep %3").arg(topology_->dp).arg(topology_->cp).arg(topology_->ep);
}

QStringList LiveView::stateNames() const {
    return rank_state_names();
}

int LiveView::stateOf(int rank) const {
    const RankRow* r = ranks_.find(rank);
    return r ? static_cast<int>(r->state) : -1;
}

void LiveView::setSettled(bool settled) {
    if (settled == settled_) return;
    settled_ = settled;
    emit settledChanged();
}

void LiveView::countUpdate() {
    ++update_count_;
    emit updated();
}

}  // namespace meshscope::ui
