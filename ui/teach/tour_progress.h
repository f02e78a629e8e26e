// TourProgress: per tour, the last step the learner reached and whether they finished it. With settings (the
// app's QSettings, under "tours/NAME/") it is remembered between runs; without (--screenshot, tests) it lives
// in memory only, so a screenshot never reads or writes what a learner did.
#pragma once

#include <QHash>
#include <QPointer>
#include <QSettings>
#include <QString>

namespace meshscope::ui {

class TourProgress {
public:
    void set_settings(QSettings* settings) { settings_ = settings; }

    [[nodiscard]] int step(const QString& tour) const;  // from 1; 0: never started
    [[nodiscard]] bool finished(const QString& tour) const;
    void reach(const QString& tour, int step);
    void finish(const QString& tour);

private:
    struct Entry {
        int step = 0;
        bool finished = false;
    };
    [[nodiscard]] Entry read(const QString& tour) const;
    void write(const QString& tour, const Entry& entry);

    QPointer<QSettings> settings_;
    QHash<QString, Entry> memory_;
};

}  // namespace meshscope::ui
