#include "tour_progress.h"

namespace meshscope::ui {

namespace {
QString key(const QString& tour, const char* field) {
    return QStringLiteral("tours/%1/%2").arg(tour, QLatin1String(field));
}
}  // namespace

TourProgress::Entry TourProgress::read(const QString& tour) const {
    if (!settings_) return memory_.value(tour);
    return {settings_->value(key(tour, "step"), 0).toInt(), settings_->value(key(tour, "finished"), false).toBool()};
}

void TourProgress::write(const QString& tour, const Entry& entry) {
    if (!settings_) {
        memory_.insert(tour, entry);
        return;
    }
    settings_->setValue(key(tour, "step"), entry.step);
    settings_->setValue(key(tour, "finished"), entry.finished);
}

int TourProgress::step(const QString& tour) const {
    return read(tour).step;
}

bool TourProgress::finished(const QString& tour) const {
    return read(tour).finished;
}

void TourProgress::reach(const QString& tour, int step) {
    Entry entry = read(tour);
    entry.step = step;
    write(tour, entry);
}

void TourProgress::finish(const QString& tour) {
    Entry entry = read(tour);
    entry.finished = true;
    write(tour, entry);
}

}  // namespace meshscope::ui
